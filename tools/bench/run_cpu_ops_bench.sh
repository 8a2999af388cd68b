#!/usr/bin/env bash
# Runs the Brisk CPU op benchmark and its PyTorch twin with the same thread count and prints
# both with the ratio Brisk / PyTorch (above 1: Brisk is faster).
#
#   tools/bench/run_cpu_ops_bench.sh            # OpenMP's default thread count
#   OMP_NUM_THREADS=1 tools/bench/run_cpu_ops_bench.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

# -c opt also defines NDEBUG, which drops Eigen's internal assertions.
bazel build -c opt //tools/bench:cpu_ops_bench >&2
# Asked of bazel rather than read from the bazel-bin symlink, which the next build of another
# configuration repoints.
brisk="$("$(bazel info -c opt bazel-bin 2>/dev/null)/tools/bench/cpu_ops_bench")"
threads="$(awk '$1 == "threads" { print $2 }' <<<"$brisk")"
torch="$(python3 tools/bench/cpu_ops_bench_torch.py "$threads")"

printf '%-28s %10s %10s %8s   (%s threads)\n' benchmark brisk pytorch ratio "$threads"
while read -r name ours; do
  [[ "$name" == threads ]] && continue
  theirs="$(awk -v n="$name" '$1 == n { print $2 }' <<<"$torch")"
  ratio="$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.2f", a / b }')"
  printf '%-28s %10s %10s %8s\n' "$name" "$ours" "$theirs" "$ratio"
done <<<"$brisk"
