#!/usr/bin/env bash
# LeNet-5 training throughput, Brisk (lenet_bench) next to PyTorch (lenet_bench_torch.py), at
# batch 64 and 256 and the same thread count for both. The two run interleaved, alternating
# which goes first, for several rounds, so that load from other processes hits both alike.
# Prints, per thread count and batch, the median over rounds of each run's median images/s,
# the range of those medians over rounds, and the ratio Brisk / PyTorch (above 1: Brisk is
# faster).
#
#   tools/bench/run_lenet_bench.sh                      # CPU, 1 and 2 threads, 3 rounds
#   ROUNDS=5 THREADS="2" tools/bench/run_lenet_bench.sh
#   DEVICE=cuda tools/bench/run_lenet_bench.sh          # on a GPU (a build with CUDA)
#   BRISK_LENET_BENCH=/path/to/lenet_bench tools/bench/run_lenet_bench.sh
#                                   # a prebuilt binary (tools/gpu/run_bundle.sh passes the bundled one)
#
# Other knobs (passed to both programs): BATCHES (64,256), WARMUP (5), REPEATS (15), STEPS (4).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

device="${DEVICE:-cpu}"
rounds="${ROUNDS:-3}"
threads_list="${THREADS:-1 2}"
flags=(--device "$device" --batches "${BATCHES:-64,256}" --warmup "${WARMUP:-5}" --repeats "${REPEATS:-15}"
  --steps "${STEPS:-4}")

binary="${BRISK_LENET_BENCH:-}"
if [ -z "$binary" ]; then
  # -c opt also defines NDEBUG, which drops Eigen's internal assertions.
  bazel build -c opt //tools/bench:lenet_bench >&2
  # Asked of bazel rather than read from the bazel-bin symlink, which other builds repoint.
  binary="$(bazel info -c opt bazel-bin 2>/dev/null)/tools/bench/lenet_bench"
fi

# One line per run and batch: impl threads round name median min max.
results="$(mktemp)"
trap 'rm -f "$results"' EXIT
run() {  # impl threads round
  local out
  if [ "$1" = brisk ]; then
    out="$("$binary" --threads "$2" "${flags[@]}")"
  else
    out="$(python3 tools/bench/lenet_bench_torch.py --threads "$2" "${flags[@]}")"
  fi
  awk -v impl="$1" -v t="$2" -v r="$3" '$1 != "threads" { print impl, t, r, $0 }' <<<"$out" >>"$results"
}
for ((round = 0; round < rounds; ++round)); do
  for threads in $threads_list; do
    if ((round % 2 == 0)); then
      run brisk "$threads" "$round"
      run pytorch "$threads" "$round"
    else
      run pytorch "$threads" "$round"
      run brisk "$threads" "$round"
    fi
  done
done

python3 - "$results" "$device" "$rounds" <<'EOF'
import collections
import statistics
import sys

path, device, rounds = sys.argv[1], sys.argv[2], sys.argv[3]
runs = collections.defaultdict(list)  # (threads, name, impl) -> [median images/s of one run]
for line in open(path):
    impl, threads, _, name, median, _, _ = line.split()
    runs[(int(threads), name, impl)].append(float(median))
print(f"LeNet-5 training step, {device}, images/s: median of {rounds} rounds [min-max over rounds]")
print(f"{'threads':>7} {'benchmark':<10} {'brisk':>24} {'pytorch':>24} {'brisk/pytorch':>13}")
for threads, name in sorted({(t, n) for t, n, _ in runs}, key=lambda k: (k[0], int(k[1].split("_b")[1]))):
    cells, medians = [], []
    for impl in ("brisk", "pytorch"):
        values = runs[(threads, name, impl)]
        medians.append(statistics.median(values))
        cells.append(f"{medians[-1]:8.0f} [{min(values):.0f}-{max(values):.0f}]")
    print(f"{threads:>7} {name:<10} {cells[0]:>24} {cells[1]:>24} {medians[0] / medians[1]:>13.2f}")
EOF
