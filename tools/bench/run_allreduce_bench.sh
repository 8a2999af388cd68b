#!/usr/bin/env bash
# All-reduce bus bandwidth on this machine, 2 processes, 4 KiB to 256 MiB: Brisk over Gloo (the
# launcher), Brisk over MPI (mpirun) and PyTorch's Gloo (allreduce_bench_torch.py), interleaved
# for ROUNDS rounds (the order rotating), then a table of the median over rounds of each one's
# bus bandwidth (allreduce_bench.cc says how it is measured) and the ratios to PyTorch.
#
#   ROUNDS=3 tools/bench/run_allreduce_bench.sh
#   MAX_BYTES=16777216 PYTHON=/work/venv-torch/bin/python tools/bench/run_allreduce_bench.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
rounds="${ROUNDS:-3}"
max_bytes="${MAX_BYTES:-268435456}"
python="${PYTHON:-python3}"
bazel build -c opt --jobs=2 //tools/bench:allreduce_bench //tools/launch >&2
bin="$(bazel info -c opt bazel-bin 2>/dev/null)"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
run() {  # name
  case "$1" in
    gloo) "$bin/tools/launch/launch" --nproc-per-node 2 "$bin/tools/bench/allreduce_bench" --max-bytes "$max_bytes" |
      sed 's/^\[rank 0\] //' ;;
    mpi) mpirun --allow-run-as-root --oversubscribe -np 2 "$bin/tools/bench/allreduce_bench" --backend mpi \
      --max-bytes "$max_bytes" ;;
    torch) "$python" tools/bench/allreduce_bench_torch.py --nproc 2 --max-bytes "$max_bytes" ;;
  esac
}
order=(gloo mpi torch)
for round in $(seq "$rounds"); do
  echo "== round $round, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  for name in "${order[@]}"; do run "$name" | tee -a "$log"; done
  order=("${order[@]:1}" "${order[0]}")
done
echo
"$python" - "$log" "$rounds" <<'PY'
import collections
import statistics
import sys
path, rounds = sys.argv[1], sys.argv[2]
busbw = collections.defaultdict(list)  # (impl, bytes) -> [GB/s per round]
for line in open(path):
    fields = line.split()
    if len(fields) == 5 and not line.startswith("#"):
        busbw[(fields[0], int(fields[1]))].append(float(fields[4]))
sizes = sorted({size for _, size in busbw})
print(f"all_reduce bus bandwidth, 2 processes, GB/s: median of {rounds} rounds")
print(f"{'bytes':>10} {'brisk gloo':>11} {'brisk mpi':>10} {'torch gloo':>11} {'gloo/torch':>10} {'mpi/torch':>10}")
def med(impl, size):
    values = busbw.get((impl, size))
    return statistics.median(values) if values else None
for size in sizes:
    g, m, t = med("gloo", size), med("mpi", size), med("torch_gloo", size)
    cell = lambda v: f"{v:.3f}" if v is not None else "-"
    ratio = lambda a, b: f"{a / b:.2f}" if a is not None and b else "-"
    label = f"{size >> 20} MiB" if size >= 1 << 20 else f"{size >> 10} KiB"
    print(f"{label:>10} {cell(g):>11} {cell(m):>10} {cell(t):>11} {ratio(g, t):>10} {ratio(m, t):>10}")
PY
