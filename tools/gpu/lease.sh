#!/usr/bin/env bash
# The plan for one 15-minute GPU lease (docs/gpu.md, "A 15-minute lease"): two device calls,
# one command each, on the bundle that tools/gpu/build_bundle.sh made here (carry .bundle).
#
#   tools/gpu/lease.sh 1   # unpack, ldd check, every gpu-tagged test binary, most basic first
#                          # (cuda/, autograd/, nn/, models/, optim/, reference/, data/,
#                          # examples/, then distributed/ and tools/train/), 90 s each at most
#   tools/gpu/lease.sh 2   # the benchmarks against PyTorch (the table), compute-sanitizer over
#                          # the CUDA tests, ncu's per-kernel time of one training step per model
#
# Budgets (seconds; the script starts nothing that would end past them, and says what it left
# out). The lease's 900 s of device time hold a machine start (~30 s, seen), call 1, at most
# the 30 s a machine stays warm between calls, and call 2, with room for a second start if the
# machine went back in between:
#
#   call 1: 360 = ~30 unpack (53 MiB took 20 s; this 18 MiB bundle 3 s here), torch import, ldd
#                 + the tests, each cut to what is left
#   call 2: 400 = ~15 check (the unpacked bundle of call 1 is reused on the same machine)
#                 + 240 benchmarks (gpu_bench 4 runs ~30, train_bench rounds 3 x ~55)
#                 +  60 compute-sanitizer (6 runs at a time, 30 s each at most)
#                 +  75 ncu (Brisk's 6 steps first, then PyTorch's, 45 s each at most)
#
# Each call's logs go to $OUT (console.log and summary.txt; call 1 tests.log; call 2 bench.log,
# sanitizer.log, ncu.txt, ncu.csv), the summary line is the output's last line, and the exit
# status is non-zero if anything failed or was left out. Run it with no GPU to check the plan:
# everything skips, within the same budgets.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# Unpacked once per machine: call 2 finds call 1's copy (same archive checksum) and skips
# the unpacking.
export BRISK_BUNDLE_DIR="${BRISK_BUNDLE_DIR:-/tmp/brisk-lease-bundle}"
case "${1:-}" in
  1)
    export BRISK_TIME_BUDGET="${BRISK_TIME_BUDGET:-360}"
    phases=(gpu-tests)
    ;;
  2)
    export BRISK_TIME_BUDGET="${BRISK_TIME_BUDGET:-400}"
    export BRISK_BENCH_BUDGET="${BRISK_BENCH_BUDGET:-240}"
    export BRISK_SANITIZE_BUDGET="${BRISK_SANITIZE_BUDGET:-60}"
    export BRISK_PROFILE_BUDGET="${BRISK_PROFILE_BUDGET:-75}"
    phases=(bench sanitize profile)
    ;;
  *)
    echo "usage: tools/gpu/lease.sh 1|2   (docs/gpu.md: the two calls of a 15-minute GPU lease)" >&2
    exit 2
    ;;
esac
echo "lease call $1: tools/gpu/run_bundle.sh ${phases[*]} within ${BRISK_TIME_BUDGET} s" \
  "(bench ${BRISK_BENCH_BUDGET:--}, sanitize ${BRISK_SANITIZE_BUDGET:--}, profile ${BRISK_PROFILE_BUDGET:--})"
exec "$root/tools/gpu/run_bundle.sh" "${phases[@]}"
