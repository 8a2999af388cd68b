#!/usr/bin/env bash
# Brisk's fused CPU attention (attention_bench) against PyTorch's scaled_dot_product_attention
# (attention_bench_torch.py) in one run: ROUNDS rounds, each running Brisk's program and then
# PyTorch's (interleaved, so that a load change on the machine hits both), each program timing
# every shape's median of RUNS calls; printed are the medians over the rounds, and the ratio
# PyTorch / Brisk (above 1: Brisk is faster).
#
#   tools/bench/run_attention_bench.sh                    # OpenMP's default thread count
#   OMP_NUM_THREADS=1 ROUNDS=7 tools/bench/run_attention_bench.sh
#   PYTHON=/work/torch-venv/bin/python tools/bench/run_attention_bench.sh
#   MODE=fastbuild tools/bench/run_attention_bench.sh     # this workspace's default build (-O2, NDEBUG unset)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

rounds="${ROUNDS:-5}"
runs="${RUNS:-5}"
python="${PYTHON:-python3}"
mode="${MODE:-opt}"
bazel build -c "$mode" //tools/bench:attention_bench >&2
bin="$(bazel info -c "$mode" bazel-bin 2>/dev/null)/tools/bench"

brisk_all="" torch_all=""
for ((round = 0; round < rounds; round++)); do
  brisk="$("$bin/attention_bench" "$runs")"
  threads="$(awk '$1 == "threads" { print $2 }' <<<"$brisk")"
  brisk_all+="$brisk"$'\n'
  torch_all+="$(cd tools/bench && "$python" attention_bench_torch.py "$threads" "$runs")"$'\n'
done

# The median over the rounds of metric $1 in the lines $2.
median() { awk -v n="$1" '$1 == n { print $2 }' <<<"$2" | sort -g | awk '{ v[NR] = $1 } END { print v[int(NR / 2) + 1] }'; }

printf '%-36s %10s %10s %8s   (%s rounds of %s runs, %s threads)\n' benchmark brisk pytorch ratio "$rounds" "$runs" \
  "$threads"
for name in $(awk '$1 != "threads" { print $1 }' <<<"$brisk" ); do
  ours="$(median "$name" "$brisk_all")"
  theirs="$(median "$name" "$torch_all")"
  printf '%-36s %10s %10s %8s\n' "$name" "$ours" "$theirs" "$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.2f", b / a }')"
done
