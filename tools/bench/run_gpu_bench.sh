#!/usr/bin/env bash
# Runs Brisk's GPU benchmark (gpu_bench) and PyTorch's (gpu_bench_torch.py) twice each on this
# machine's GPU, in the order ours, PyTorch, PyTorch, ours (so that drift hits both alike), and
# prints the table that tools/gpu/run_bundle.sh prints for the same runs
# (tools/gpu/gpu_bench_table.py, docs/gpu.md): each metric, the mean of each side's two runs
# with half their spread, and the ratio ours / PyTorch (for us/call, lower is better).
#
#   tools/bench/run_gpu_bench.sh              # bazel's build of //tools/bench:gpu_bench
#   BRISK_GPU_BENCH=/path/to/gpu_bench tools/bench/run_gpu_bench.sh
#
# On a lent GPU machine (no Bazel), tools/gpu/run_bundle.sh runs the bundled gpu_bench instead.
#
# The logs go to $BRISK_LOG_DIR (default: a new directory under /tmp, printed at the end).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
logs="${BRISK_LOG_DIR:-$(mktemp -d /tmp/brisk-gpu-bench.XXXXXX)}"
mkdir -p "$logs"

binary="${BRISK_GPU_BENCH:-}"
# The default configuration (the one tests and the GPU bundle build, from the shared cache):
# .bazelrc compiles with -O2, and nvcc compiles the kernels with -O3 in every configuration.
if [ -z "$binary" ] && command -v bazel >/dev/null 2>&1; then
  (cd "$root" && bazel build //tools/bench:gpu_bench >&2) &&
    binary="$(cd "$root" && bazel info bazel-bin 2>/dev/null)/tools/bench/gpu_bench"
fi
if [ -z "$binary" ] || [ ! -x "$binary" ]; then
  echo "run_gpu_bench: no gpu_bench binary: build it (bazel build //tools/bench:gpu_bench), or on a machine without Bazel run tools/gpu/run_bundle.sh bench" >&2
  exit 1
fi

failed=0
for run in brisk1 torch1 torch2 brisk2; do
  program=("$binary")
  [[ $run == torch* ]] && program=(python3 "$root/tools/bench/gpu_bench_torch.py")
  "${program[@]}" >"$logs/$run.tsv" 2>"$logs/$run.err"
  rc=$?
  [ $rc -ne 0 ] && { echo "run_gpu_bench: $run failed (exit $rc):"; tail -n 20 "$logs/$run.err"; failed=1; }
done
python3 "$root/tools/gpu/gpu_bench_table.py" "$logs"
echo
echo "logs: $logs"
[ $failed -eq 0 ]
