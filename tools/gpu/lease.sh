#!/usr/bin/env bash
# The plan for one 15-minute GPU lease (docs/gpu.md, "A 15-minute lease"): two device calls,
# one command each, on the bundle that tools/gpu/build_bundle.sh made here (carry .bundle).
#
#   tools/gpu/lease.sh 1   # unpack, ldd check, every gpu-tagged test binary, most basic first
#                          # (cuda/, autograd/, nn/, models/, optim/, reference/, data/,
#                          # examples/, then distributed/ and tools/train/), 90 s each at most;
#                          # then compute-sanitizer over the CUDA tests
#   tools/gpu/lease.sh 2   # the benchmarks against PyTorch (the table), then ncu's per-kernel
#                          # time of one training step per model, Brisk's and PyTorch's in pairs
#
# Budgets (seconds; the script starts nothing that would end past them, and says what it left
# out), sized from the second H200 lease (2026-11-28, bundle of fba0fac). The lease's 900 s of
# device time hold a machine start (~30 s), call 1, at most the 30 s a machine stays warm
# between calls, and call 2, with room for a second start if the machine went back in between:
#
#   call 1: 240 = ~10 unpack (the 18 MiB bundle), torch import, ldd
#                 + the 40 test binaries (70 s measured), each cut to what is left
#                 +  70 compute-sanitizer (15 runs, 6 at a time: ~30 s measured)
#   call 2: 500 = ~5 check (the unpacked bundle of call 1 is reused on the same machine)
#                 + 320 benchmarks (gpu_bench 4 runs ~25 s, train_bench 3 rounds of 86-91 s)
#                 + 175 ncu (12 steps of 5-21 s measured, Brisk's and PyTorch's of each model
#                       in turn, 45 s each at most)
#
# Each call's logs go to $OUT (console.log and summary.txt; call 1 tests.log, sanitizer.log;
# call 2 bench.log, ncu.txt, ncu.csv), the summary line is the output's last line, and the exit
# status is non-zero if anything failed or was left out. Run it with no GPU to check the plan:
# everything skips, within the same budgets.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# Unpacked once per machine: call 2 finds call 1's copy (same archive checksum) and skips
# the unpacking.
export BRISK_BUNDLE_DIR="${BRISK_BUNDLE_DIR:-/tmp/brisk-lease-bundle}"
case "${1:-}" in
  1)
    export BRISK_TIME_BUDGET="${BRISK_TIME_BUDGET:-240}"
    export BRISK_SANITIZE_BUDGET="${BRISK_SANITIZE_BUDGET:-70}"
    phases=(gpu-tests sanitize)
    ;;
  2)
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
