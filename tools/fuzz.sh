#!/usr/bin/env bash
# Fuzzes the dataset parsers with libFuzzer for longer than the test suite's 20 s per target
# (//tests/data/fuzz, which in the default gcc build runs data/fuzz/driver.cc instead): builds
# data/fuzz's targets with --config=fuzz (clang-14, ASan, UBSan: .bazelrc) in an output base
# of their own, so that the default build's C++ toolchain is not reconfigured, and runs each.
#
#   tools/fuzz.sh                 # every target, 60 s each
#   tools/fuzz.sh 600 idx         # only idx, 10 minutes
#   FUZZ_DIR=/tmp/f tools/fuzz.sh # where new corpus entries and crashes go
#
# New inputs are kept in $FUZZ_DIR/corpus/<target> (the committed seeds are only read); a
# crashing input is written to $FUZZ_DIR/crash-<target>-* and the script exits non-zero.
# Reproduce one by running the fuzzer (the path this script prints) on the file.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(idx cifar10)
out="${FUZZ_DIR:-/tmp/brisk-fuzz}"
bazel_fuzz() { bazel --output_base="$HOME/.cache/brisk/fuzz-output-base" "$@"; }

labels=()
for target in "${targets[@]}"; do labels+=("//data/fuzz:${target}_fuzzer"); done
bazel_fuzz build --config=fuzz "${labels[@]}"
bin="$(bazel_fuzz info --config=fuzz bazel-bin 2>/dev/null)"
status=0
for target in "${targets[@]}"; do
  mkdir -p "$out/corpus/$target"
  echo "tools/fuzz.sh: fuzzing $target for ${seconds}s: $bin/data/fuzz/${target}_fuzzer"
  if ! "$bin/data/fuzz/${target}_fuzzer" -max_total_time="$seconds" -max_len=16384 -rss_limit_mb=4096 \
      -print_final_stats=1 -artifact_prefix="$out/crash-$target-" "$out/corpus/$target" "data/fuzz/corpus/$target"; then
    echo "tools/fuzz.sh: $target FAILED; see $out/crash-$target-*"
    status=1
  fi
done
exit $status
