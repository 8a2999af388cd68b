#!/usr/bin/env bash
# Builds the GPU bundle: what a GPU machine needs to run, and nothing else: the gpu-tagged test
# binaries and the GPU benchmarks (gpu_bench, train_bench; their PyTorch twins travel with the
# working tree), with their runfiles data (fixtures, and the programs tests start: train,
# launch, workers), a 1000-image subset of each Fashion-MNIST file in place of the 26 MiB set,
# and the non-CUDA shared libraries they load, packed as ONE xz archive,
# .bundle/brisk-bundle.tar.xz (.bundle is git-ignored). tools/gpu/run_bundle.sh unpacks and
# runs it on a GPU machine that has CUDA 13, cuDNN and NCCL (PyTorch's wheels) but no Bazel.
# docs/gpu.md lists what the archive holds and why it is built in the default configuration.
#
# It refuses (exit 1, giving the sizes) when the archive and the working tree the device tool
# sends with it (tracked and untracked-not-ignored files) exceed 40 MiB together.
#
#   tools/gpu/build_bundle.sh
#   BRISK_JOBS=4 tools/gpu/build_bundle.sh
#   tools/gpu/build_bundle.sh //tests/cuda/... //tests/data:pin_memory_test   # only the tests among
#                                                   # these (gpu-tagged or not), no benchmarks
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root="$PWD"
out="$root/.bundle"
archive="$out/brisk-bundle.tar.xz"
# The device tool carries at most 64 MiB a call: the working tree and the archive together.
# The bundle refuses to grow past 40 MiB with the tree, leaving the rest as room.
limit=$((40 * 1024 * 1024))
# Images (and labels) of each Fashion-MNIST file in the bundle's subset.
mnist_subset=1000

nvcc="${CUDA_PATH:-/usr/local/cuda}/bin/nvcc"
if [ ! -x "$nvcc" ]; then
  echo "build_bundle: no nvcc at $nvcc: the bundle needs a build with CUDA" >&2
  exit 1
fi

# ---- What to build ----
# The gpu-tagged tests and the benchmarks a single GPU runs (tools/gpu/run_bundle.sh says why
# the others are left out); the other tests run wherever Bazel does. With arguments, every test
# among those targets, and no benchmarks.
universe="//..."
benchmarks=(//tools/bench:gpu_bench //tools/bench:train_bench)
[ $# -gt 0 ] && { universe="set($*)"; benchmarks=(); }
gpu_query="attr(tags, \"\\bgpu\\b\", kind(cc_test, $universe))"
test_query="$gpu_query"
[ $# -gt 0 ] && test_query="kind(cc_test, $universe)"
mapfile -t tests < <(bazel query --noshow_progress "$test_query")
mapfile -t gpu_tests < <(bazel query --noshow_progress "$gpu_query")
if [ ${#tests[@]} -eq 0 ]; then
  echo "build_bundle: no test among $test_query" >&2
  exit 1
fi
echo "build_bundle: ${#tests[@]} test targets (${#gpu_tests[@]} tagged gpu), ${#benchmarks[@]} benchmarks"

bazel build --jobs="${BRISK_JOBS:-2}" --color=no --curses=no "${tests[@]}" "${benchmarks[@]}"
# Asked of bazel rather than read from the bazel-bin symlink, which other builds repoint.
bin="$(bazel info bazel-bin 2>/dev/null)"

stage="$(mktemp -d "${TMPDIR:-/tmp}/brisk-bundle.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib/libstdcxx" "$stage/runfiles/brisk"
touch "$stage"/{tests,gpu_tests,benchmarks,programs}.txt

# Libraries the GPU machine has (CUDA's own, from the toolkit or PyTorch's wheels) or that
# must match its system (glibc, and the newer libstdc++/libgcc_s it ships): never bundled.
system_lib='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libutil|libstdc\+\+|libgcc_s)\.so'
cuda_lib='^lib(cuda|cudart|cublas|cublasLt|cudnn[a-z_]*|nccl|curand|cufft|cupti|cusparse|cusolver|nvrtc|nvJitLink|nvToolsExt)\.so'

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
    [ -e "$stage/lib/$name" ] || cp -L "$path" "$stage/lib/$name"
  done < <(ldd "$1")
}

is_elf() { [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }

# Copies the data files of `$1`'s runfiles (not its shared libraries or itself) into
# runfiles/; programs among them (train, launch, workers) also bring their libraries and are
# listed in programs.txt. Fashion-MNIST's files become their first $mnist_subset items. A file
# already in the bundle under another path becomes a relative symlink.
declare -A copied=()
copy_runfiles() {
  local manifest="$1.runfiles_manifest" path target dest real
  [ -f "$manifest" ] || return 0
  while read -r path target; do
    [ -n "$target" ] || continue
    case "$path" in */_solib_*/* | *.so | *.so.*) continue ;; esac
    [ "$(readlink -f "$target")" = "$(readlink -f "$1")" ] && continue
    [ -f "$target" ] || continue
    dest="$stage/runfiles/$path"
    [ -e "$dest" ] && continue
    mkdir -p "$(dirname "$dest")"
    real="$(readlink -f "$target")"
    if [ -n "${copied[$real]:-}" ]; then
      ln -s "$(realpath --relative-to="$(dirname "$dest")" "${copied[$real]}")" "$dest"
    elif [[ $path == */fashion_mnist/*-ubyte.gz ]]; then
      python3 tools/gpu/idx_subset.py "$target" "$dest" "$mnist_subset"
      copied[$real]="$dest"
    else
      cp -L "$target" "$dest"
      copied[$real]="$dest"
      if [ -x "$dest" ] && is_elf "$dest"; then
        copy_libraries "$target"
        echo "runfiles/$path" >>"$stage/programs.txt"
      fi
    fi
  done <"$manifest"
}

# bin/<package>/<name>: where a target's binary goes in the bundle.
bundle_path() { local pkg="${1#//}"; echo "bin/${pkg%%:*}/${1##*:}"; }  # bundle_path <label>

add() {  # add <label> <list file>
  local path binary
  path="$(bundle_path "$1")"
  binary="$bin/${path#bin/}"
  mkdir -p "$(dirname "$stage/$path")"
  cp -L "$binary" "$stage/$path"
  echo "$path" >>"$2"
  copy_libraries "$binary"
  copy_runfiles "$binary"
}

for t in "${tests[@]}"; do add "$t" "$stage/tests.txt"; done
for t in "${gpu_tests[@]}"; do bundle_path "$t" >>"$stage/gpu_tests.txt"; done
# The tests' `env` attributes (e.g. BRISK_TEST_WORKER_DEVICE=nccl, which makes a twin of a
# multi-process test run its workers on the GPU), which bazel test sets and run_bundle.sh must
# set too: one line per test that has any, "bin/<package>/<name> KEY=VALUE ...".
bazel query --noshow_progress --output=xml "kind(cc_test, $universe)" | python3 -c '
import sys, xml.etree.ElementTree as ET
for rule in ET.parse(sys.stdin).getroot().iter("rule"):
    env = rule.find("dict[@name=\"env\"]")
    if env is None or len(env) == 0:
        continue
    label = rule.get("name")[2:]
    pairs = ["=".join(s.get("value") for s in pair.findall("string")) for pair in env.findall("pair")]
    print("bin/" + label.replace(":", "/"), *pairs)
' >"$stage/test_env.txt"
for b in "${benchmarks[@]}"; do add "$b" "$stage/benchmarks.txt"; done

# Our libstdc++ (GCC's, newer than some GPU machines'), for run_bundle.sh to use only where the
# machine's lacks a GLIBCXX/CXXABI version the binaries need: loading it everywhere would
# also hand it to PyTorch in the benchmarks' python.
first="$(head -n 1 "$stage/tests.txt")"
libstdcxx="$(ldd "$stage/$first" | awk '$1 ~ /^libstdc\+\+\.so/ { print $3 }')"
if [ -z "$libstdcxx" ] || [ ! -f "$libstdcxx" ]; then
  echo "build_bundle: cannot find the libstdc++ that $first loads" >&2
  exit 1
fi
cp -L "$libstdcxx" "$stage/lib/libstdcxx/libstdc++.so.6"

chmod -R u+w "$stage"
# Every ELF file: the binaries, the libraries, and programs among the runfiles.
find "$stage" -type f -print0 | while IFS= read -r -d '' f; do
  if is_elf "$f"; then strip --strip-unneeded "$f"; fi
done

# The newest symbol versions the binaries and their libraries need (not counting our
# libstdc++, which defines the GLIBCXX/CXXABI ones).
needed() {  # needed <prefix>
  find "$stage/bin" "$stage/lib" -path "$stage/lib/libstdcxx" -prune -o -type f -exec objdump -T {} + 2>/dev/null |
    grep -oE "\($1[0-9.]+\)" | tr -d '()' | sed "s/^$1//" | sort -Vu | tail -n 1
}
glibc="$(needed GLIBC_)"
{
  echo "built: $(date -u +%Y-%m-%dT%H:%MZ) from commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!.bundle' || echo ' (with uncommitted changes)')"
  echo "configuration: bazel default (fastbuild with .bazelrc's -O2 -mavx2 -mfma); kernels: nvcc -O3"
  echo "CUDA toolkit: $("$nvcc" --version | grep -o 'release [0-9.]*' | head -n 1) (needs a driver for CUDA 13: >= 580)"
  echo "needs glibc: ${glibc:-no versioned symbol}"
  echo "needs GLIBCXX: $(needed GLIBCXX_)"
  echo "needs CXXABI: $(needed CXXABI_)"
} >"$stage/info.txt"

# One archive: xz finds the repetition in the CUDA kernels' fatbin (~34 MB -> ~3 MB).
# python3's tarfile (lzma) unpacks it on the GPU machine.
rm -rf "$out"
mkdir -p "$out"
echo "build_bundle: packing $(du -sh "$stage" | cut -f1) with xz -9e (a few minutes)"
(cd "$stage" && XZ_OPT=-9e tar --owner=0 --group=0 -cJf "$archive.partial" .)
mv "$archive.partial" "$archive"

size="$(stat -c %s "$archive")"
# What the device tool sends besides carried paths: tracked and untracked-not-ignored files.
tree="$(git ls-files -z --cached --others --exclude-standard | du -cb --files0-from=- 2>/dev/null | tail -n 1 | cut -f1)"
total=$((size + tree))
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
echo "build_bundle: $(wc -l <"$stage/tests.txt") tests, $(wc -l <"$stage/benchmarks.txt") benchmarks," \
  "$(wc -l <"$stage/programs.txt") programs, $(find "$stage/lib" -maxdepth 1 -type f | wc -l) libraries;" \
  "$(du -sh --apparent-size "$stage" | cut -f1) unpacked; $archive: $(mib "$size")" \
  "(+ $(mib "$tree") working tree = $(mib "$total"); limit $(mib "$limit"), the device tool's 64 MiB)"
cat "$stage/info.txt"
if [ "$total" -gt "$limit" ]; then
  rm -f "$archive"
  echo "build_bundle: refused: the archive ($(mib "$size")) and the working tree ($(mib "$tree")) come to" \
    "$(mib "$total"), over the bundle's limit of $(mib "$limit"); archive removed." >&2
  echo "Largest files in the bundle (unpacked, before xz):" >&2
  (cd "$stage" && find . -type f -printf '%s\t%p\n' | sort -rn | head -n 10) >&2
  echo "Largest files in the working tree:" >&2
  git ls-files -z --cached --others --exclude-standard | du -b --files0-from=- 2>/dev/null | sort -rn | head -n 5 >&2
  exit 1
fi
