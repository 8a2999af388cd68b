#!/usr/bin/env bash
# The plan for one 15-minute GPU lease: two device calls, one command each, on the bundle that
# tools/gpu/build_bundle.sh made here (carry .bundle). docs/gpu.md ("A 15-minute lease: the
# plan") sizes the budgets below from the second H200 lease (2026-11-28, bundle of fba0fac).
#
#   tools/gpu/lease.sh 1   # unpack, ldd check, every gpu-tagged test binary, most basic first,
#                          # 90 s each at most; then compute-sanitizer over the CUDA tests
#   tools/gpu/lease.sh 2   # the benchmarks against PyTorch (the table), then ncu's per-kernel
#                          # time of one training step per model, Brisk's and PyTorch's in pairs
#
# Each call's logs go to $OUT, the summary line is the output's last line, and the exit status
# is non-zero if anything failed or was left out. Run it with no GPU to check the plan:
# everything skips, within the same budgets.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# Unpacked once per machine: call 2 finds call 1's copy (same archive checksum) and skips
# the unpacking.
export BRISK_BUNDLE_DIR="${BRISK_BUNDLE_DIR:-/tmp/brisk-lease-bundle}"
case "${1:-}" in
  1)
    # ~10 s unpack and ldd + the test binaries (70 s measured) + 70 s compute-sanitizer (~30 measured)
    export BRISK_TIME_BUDGET="${BRISK_TIME_BUDGET:-240}"
    export BRISK_SANITIZE_BUDGET="${BRISK_SANITIZE_BUDGET:-70}"
    phases=(gpu-tests sanitize)
    ;;
  2)
    # ~5 s check + 320 s benchmarks (gpu_bench ~25 s, train_bench 3 rounds of 86-91 s)
    # + 175 s ncu (12 steps of 5-21 s measured)
    export BRISK_TIME_BUDGET="${BRISK_TIME_BUDGET:-500}"
    export BRISK_BENCH_BUDGET="${BRISK_BENCH_BUDGET:-320}"
    export BRISK_PROFILE_BUDGET="${BRISK_PROFILE_BUDGET:-175}"
    phases=(bench profile)
    ;;
  *)
    echo "usage: tools/gpu/lease.sh 1|2   (docs/gpu.md: the two calls of a 15-minute GPU lease)" >&2
    exit 2
    ;;
esac
echo "lease call $1: tools/gpu/run_bundle.sh ${phases[*]} within ${BRISK_TIME_BUDGET} s" \
  "(sanitize ${BRISK_SANITIZE_BUDGET:--}, bench ${BRISK_BENCH_BUDGET:--}, profile ${BRISK_PROFILE_BUDGET:--})"
exec "$root/tools/gpu/run_bundle.sh" "${phases[@]}"
