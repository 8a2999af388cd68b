#!/usr/bin/env bash
# Builds the GPU bundle: every test binary (gpu-tagged ones included) and every benchmark
# under tools/bench, built here with Bazel (-c opt, CUDA on), with their runfiles data and the
# non-CUDA shared libraries they load, into .bundle/ (git-ignored). tools/gpu/run_bundle.sh
# runs it on a GPU machine that has CUDA, cuDNN and NCCL but no Bazel. See docs/gpu.md.
#
#   tools/gpu/build_bundle.sh            # all tests and benchmarks
#   BRISK_JOBS=4 tools/gpu/build_bundle.sh
#   BRISK_BUNDLE_OUTPUT_BASE=/tmp/brisk-opt tools/gpu/build_bundle.sh
#       # in a Bazel server of its own: does not wait for other builds, and leaves the shared
#       # server's (fastbuild) analysis cache alone
#
# Layout of .bundle/:
#   bin/<package>/<name>    stripped binaries
#   lib/                    shared libraries they need that the GPU machine may lack
#   runfiles/<workspace>/   their data files, where Bazel's runfiles tree has them
#   tests.txt, benchmarks.txt   one binary (relative to .bundle) per line
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root="$PWD"
out="$root/.bundle"
limit=$((64 * 1024 * 1024))

nvcc="${CUDA_PATH:-/usr/local/cuda}/bin/nvcc"
if [ ! -x "$nvcc" ]; then
  echo "build_bundle: no nvcc at $nvcc: the bundle needs a build with CUDA" >&2
  exit 1
fi

bazel=(bazel)
build_flags=()
if [ -n "${BRISK_BUNDLE_OUTPUT_BASE:-}" ]; then
  bazel+=(--output_base="$BRISK_BUNDLE_OUTPUT_BASE")
  # Leaves the workspace's bazel-* links to the shared server.
  build_flags+=(--symlink_prefix=/)
fi

# ---- What to build ----
# Every package, spelled out per top-level directory rather than as //...: a server with
# another output base does not know the bazel-* links as its own and would descend them.
packages=("//:all")
for d in */; do
  d="${d%/}"
  [[ $d == bazel-* ]] && continue
  [ -n "$(find "$d" \( -name BUILD -o -name BUILD.bazel \) -print -quit)" ] && packages+=("//$d/...")
done
labels="$("${bazel[@]}" query --noshow_progress "kind(cc_test, set(${packages[*]}))")"
mapfile -t tests <<<"$labels"
benchmarks=()
if [ -d tools/bench ]; then
  labels="$("${bazel[@]}" query --noshow_progress 'kind(cc_binary, //tools/bench/...)')"
  [ -n "$labels" ] && mapfile -t benchmarks <<<"$labels"
fi
echo "build_bundle: ${#tests[@]} test targets, ${#benchmarks[@]} benchmarks"

"${bazel[@]}" build -c opt --strip=always --jobs="${BRISK_JOBS:-2}" --color=no --curses=no "${build_flags[@]}" \
  "${tests[@]}" "${benchmarks[@]}"
# Asked of bazel rather than read from the bazel-bin symlink, which other builds repoint.
bin="$("${bazel[@]}" info -c opt bazel-bin 2>/dev/null)"

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/runfiles/brisk"
: >"$out/tests.txt"
: >"$out/benchmarks.txt"

# Libraries the GPU machine has (CUDA's own, from the toolkit or PyTorch's wheels) or that
# must match its system (glibc, and the newer libstdc++/libgcc_s it ships): never bundled.
system_lib='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libutil|libstdc\+\+|libgcc_s)\.so'
cuda_lib='^lib(cuda|cudart|cublas|cublasLt|cudnn[a-z_]*|nccl|curand|cufft|cusparse|cusolver|nvrtc|nvJitLink|nvToolsExt)\.so'

# Copies the shared libraries `$1` loads (per ldd) into lib/, except the ones above.
copy_libraries() {
  local name arrow path rest
  while read -r name arrow path rest; do
    [[ $arrow == "=>" ]] || continue
    [[ $name =~ $system_lib || $name =~ $cuda_lib ]] && continue
    if [[ $path == "not" ]]; then
      echo "build_bundle: $1 needs $name, which ldd cannot find" >&2
      exit 1
    fi
    [ -e "$out/lib/$name" ] || cp -L "$path" "$out/lib/$name"
  done < <(ldd "$1")
}

# Copies the data files of `$1`'s runfiles (not its shared libraries or itself) into
# runfiles/. A file already in the bundle under another path becomes a relative symlink.
declare -A copied=()
copy_runfiles() {
  local manifest="$1.runfiles_manifest" path target dest
  [ -f "$manifest" ] || return 0
  while read -r path target; do
    [ -n "$target" ] || continue
    case "$path" in */_solib_*/* | *.so | *.so.*) continue ;; esac
    [ "$(readlink -f "$target")" = "$(readlink -f "$1")" ] && continue
    [ -f "$target" ] || continue
    dest="$out/runfiles/$path"
    [ -e "$dest" ] && continue
    mkdir -p "$(dirname "$dest")"
    local real
    real="$(readlink -f "$target")"
    if [ -n "${copied[$real]:-}" ]; then
      ln -s "$(realpath --relative-to="$(dirname "$dest")" "${copied[$real]}")" "$dest"
    else
      cp -L "$target" "$dest"
      copied[$real]="$dest"
    fi
  done <"$manifest"
}

add() {  # add <label> <list file>
  local label="$1" list="$2" pkg name
  pkg="${label#//}"; pkg="${pkg%%:*}"; name="${label##*:}"
  local binary="$bin/$pkg/$name"
  mkdir -p "$out/bin/$pkg"
  cp -L "$binary" "$out/bin/$pkg/$name"
  echo "bin/$pkg/$name" >>"$list"
  copy_libraries "$binary"
  copy_runfiles "$binary"
}

for t in "${tests[@]}"; do add "$t" "$out/tests.txt"; done
for b in "${benchmarks[@]}"; do add "$b" "$out/benchmarks.txt"; done

chmod -R u+w "$out"
find "$out/bin" -type f -exec strip --strip-unneeded {} +
find "$out/lib" -type f -exec strip --strip-unneeded {} +

size="$(du -sb "$out" | cut -f1)"
glibc="$(find "$out/bin" "$out/lib" -type f -exec objdump -T {} + 2>/dev/null |
  grep -o 'GLIBC_[0-9.]*' | sort -Vu | tail -n 1)"
echo "build_bundle: $(wc -l <"$out/tests.txt") tests, $(wc -l <"$out/benchmarks.txt") benchmarks," \
  "$(ls "$out/lib" | wc -l) libraries, $((size / 1024 / 1024)) MiB; needs ${glibc:-no versioned glibc}"
if [ "$size" -gt "$limit" ]; then
  echo "build_bundle: .bundle is over 64 MiB, more than a device run can carry" >&2
  du -ab "$out" | sort -rn | head -n 15 >&2
  exit 1
fi
