#!/usr/bin/env bash
# Runs the Brisk LeNet conv/pool benchmark and its PyTorch twin with the same thread count and
# prints both with the ratio PyTorch / Brisk (above 1: Brisk is faster).
#
#   tools/bench/run_conv_bench.sh            # OpenMP's default thread count
#   OMP_NUM_THREADS=1 tools/bench/run_conv_bench.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

bazel build -c opt //tools/bench:conv_bench >&2
brisk="$("$(bazel info -c opt bazel-bin 2>/dev/null)/tools/bench/conv_bench")"
threads="$(awk '$1 == "threads" { print $2 }' <<<"$brisk")"
torch="$(python3 tools/bench/conv_bench_torch.py "$threads")"

printf '%-26s %10s %10s %8s   (%s threads, ms)\n' benchmark brisk pytorch ratio "$threads"
while read -r name ours; do
  [[ "$name" == threads ]] && continue
  theirs="$(awk -v n="$name" '$1 == n { print $2 }' <<<"$torch")"
  ratio="$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.2f", b / a }')"
  printf '%-26s %10s %10s %8s\n' "$name" "$ours" "$theirs" "$ratio"
done <<<"$brisk"
