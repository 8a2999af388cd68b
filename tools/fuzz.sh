#!/usr/bin/env bash
# Fuzzes the dataset file parsers with libFuzzer: builds each target of data/fuzz/ with clang
# (-fsanitize=fuzzer,address,undefined) outside Bazel, then runs it for a while on its seed
# corpus (data/fuzz/corpus/<target>). tools/test.sh only replays the seeds and fixed mutations of
# them (//tests/data:<target>_fuzz_replay_test); this explores.
#
#   tools/fuzz.sh                 # every target, 60 s each
#   tools/fuzz.sh 600 idx         # only idx, 10 minutes
#   FUZZ_DIR=/tmp/f tools/fuzz.sh # where objects, binaries, new corpus entries and crashes go
#
# New interesting inputs are kept in $FUZZ_DIR/corpus/<target> (the committed seeds are only
# read); a crashing input is written to $FUZZ_DIR/crash-<target>-* and the script exits
# non-zero. Reproduce one with: $FUZZ_DIR/<target>_fuzzer <file>.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(idx cifar10)
out="${FUZZ_DIR:-/tmp/brisk-fuzz}"
jobs="$(nproc)"

command -v clang++ >/dev/null || { echo "tools/fuzz.sh: clang++ not found (apt-get install clang)" >&2; exit 1; }

flags=(-std=c++17 -O1 -g -fno-omit-frame-pointer -I. -isystem /usr/include/eigen3 -fsanitize=address,undefined
       -fno-sanitize-recover=undefined -Wno-unknown-pragmas)

# Only the parsers are coverage-instrumented; the code beneath them (the tensor library,
# file reading) just gets the sanitizers, which keeps libFuzzer's feedback on the parsers.
parsers=(data/gzip.cc data/idx.cc data/cifar10_format.cc)
library=(data/file_bytes.cc tensor/*.cc tensor/native/*.cc tensor/cpu/*.cc)

# Compiles $1 to its object under $out/obj, with the extra flags that follow, unless the
# object is newer than the source and every header it included (from clang's -MMD file).
compile() {
  local src="$1" obj="$out/obj/${1%.cc}.o"
  shift
  local dep="${obj%.o}.d"
  if [ -f "$obj" ] && [ -f "$dep" ]; then
    local inputs
    inputs="$(sed -e 's/^[^:]*://' -e 's/\\$//' "$dep")"
    # shellcheck disable=SC2086  # one path per word
    [ -z "$(find $inputs -newer "$obj" 2>/dev/null)" ] && return 0
  fi
  mkdir -p "$(dirname "$obj")"
  clang++ "${flags[@]}" "$@" -MMD -c "$src" -o "$obj"
}

echo "tools/fuzz.sh: building into $out"
objects=()
for src in "${library[@]}" "${parsers[@]}"; do
  extra=()
  [[ " ${parsers[*]} " == *" $src "* ]] && extra=(-fsanitize=fuzzer-no-link)
  compile "$src" "${extra[@]}" &
  objects+=("$out/obj/${src%.cc}.o")
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
done
for pid in $(jobs -p); do wait "$pid"; done

status=0
for target in "${targets[@]}"; do
  binary="$out/${target}_fuzzer"
  clang++ "${flags[@]}" -fsanitize=fuzzer "data/fuzz/${target}_fuzzer.cc" "${objects[@]}" -lfmt -lz -o "$binary"
  corpus="$out/corpus/$target"
  mkdir -p "$corpus"
  echo "tools/fuzz.sh: fuzzing $target for ${seconds}s"
  if ! "$binary" -max_total_time="$seconds" -max_len=16384 -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix="$out/crash-$target-" "$corpus" "data/fuzz/corpus/$target"; then
    echo "tools/fuzz.sh: $target FAILED; see $out/crash-$target-*"
    status=1
  fi
done
exit $status
