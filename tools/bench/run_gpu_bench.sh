#!/usr/bin/env bash
# Runs Brisk's GPU benchmark (gpu_bench) and PyTorch's (gpu_bench_torch.py) one after the
# other on this machine's GPU and prints one table: each metric, ours, PyTorch's, and the
# ratio (ours / PyTorch; for us/call, lower is better).
#
#   tools/bench/run_gpu_bench.sh              # bazel's build of //tools/bench:gpu_bench
#   BRISK_GPU_BENCH=/path/to/gpu_bench tools/bench/run_gpu_bench.sh
#
# On a lent GPU machine (no Bazel), tools/gpu/run_bundle.sh runs the bundled gpu_bench and
# gpu_bench_torch.py twice each and prints the same comparison (docs/gpu.md).
#
# Both logs go to $BRISK_LOG_DIR (default: a new directory under /tmp, printed at the end).
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

"$binary" >"$logs/brisk.tsv" 2>"$logs/brisk.err"
brisk_rc=$?
python3 "$root/tools/bench/gpu_bench_torch.py" >"$logs/torch.tsv" 2>"$logs/torch.err"
torch_rc=$?

grep '^#' "$logs/brisk.tsv" "$logs/torch.tsv" | sed 's/^[^:]*://'
echo
awk -F'\t' -v torch_file="$logs/torch.tsv" '
  BEGIN {
    while ((getline line < torch_file) > 0) {
      n = split(line, f, "\t");
      if (f[1] !~ /^#/ && n >= 4) torch[f[1]] = f[2];
    }
    printf "%-12s %10s %10s %8s  %-8s %s\n", "metric", "brisk", "pytorch", "ratio", "unit", "what"
  }
  $1 !~ /^#/ && NF >= 4 {
    theirs = ($1 in torch) ? torch[$1] : "-";
    ratio = (theirs != "-" && theirs + 0 != 0) ? sprintf("%.2f", $2 / theirs) : "-";
    printf "%-12s %10s %10s %8s  %-8s %s\n", $1, $2, theirs, ratio, $3, $4
  }
' "$logs/brisk.tsv"
echo
echo "logs: $logs"
[ $brisk_rc -ne 0 ] && { echo "run_gpu_bench: gpu_bench failed (exit $brisk_rc):"; tail -n 20 "$logs/brisk.err"; }
[ $torch_rc -ne 0 ] && { echo "run_gpu_bench: gpu_bench_torch.py failed (exit $torch_rc):"; tail -n 20 "$logs/torch.err"; }
[ $brisk_rc -eq 0 ] && [ $torch_rc -eq 0 ]
