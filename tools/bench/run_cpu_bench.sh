#!/usr/bin/env bash
# Runs Brisk's CPU benchmarks (cpu_ops_bench: throughputs; conv_bench: LeNet conv/pool times in
# ms) and their PyTorch twins with the same thread count, and prints each next to PyTorch's
# with the ratio oriented so that above 1 means Brisk is faster (PyTorch / Brisk for a time,
# metric names ending in _ms; Brisk / PyTorch for a throughput).
#
#   tools/bench/run_cpu_bench.sh                 # both, OpenMP's default thread count
#   tools/bench/run_cpu_bench.sh conv_bench      # one of them
#   OMP_NUM_THREADS=1 tools/bench/run_cpu_bench.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

benches=("$@")
[[ ${#benches[@]} -eq 0 ]] && benches=(cpu_ops_bench conv_bench)
# -c opt also defines NDEBUG, which drops Eigen's internal assertions.
bazel build -c opt "${benches[@]/#/\/\/tools\/bench:}" >&2
# Asked of bazel rather than read from the bazel-bin symlink, which the next build of another
# configuration repoints.
bin="$(bazel info -c opt bazel-bin 2>/dev/null)/tools/bench"

for bench in "${benches[@]}"; do
  brisk="$("$bin/$bench")"
  threads="$(awk '$1 == "threads" { print $2 }' <<<"$brisk")"
  torch="$(python3 "tools/bench/${bench}_torch.py" "$threads")"
  printf '%-28s %10s %10s %8s   (%s, %s threads)\n' benchmark brisk pytorch ratio "$bench" "$threads"
  while read -r name ours; do
    [[ "$name" == threads ]] && continue
    theirs="$(awk -v n="$name" '$1 == n { print $2 }' <<<"$torch")"
    ratio="$(awk -v n="$name" -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.2f", n ~ /_ms$/ ? b / a : a / b }')"
    printf '%-28s %10s %10s %8s\n' "$name" "$ours" "$theirs" "$ratio"
  done <<<"$brisk"
done
