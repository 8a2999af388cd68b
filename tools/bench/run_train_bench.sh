#!/usr/bin/env bash
# Training throughput of the reference models, Brisk (train_bench) next to PyTorch
# (train_bench_torch.py), at the same batch sizes and thread count for both. The two run
# interleaved, alternating which goes first, for several rounds, so that load from other
# processes hits both alike. Prints, per model, thread count and batch, the median over rounds
# of each run's median images/s, the range of those medians over rounds, and the ratio
# Brisk / PyTorch (above 1: Brisk is faster).
#
#   tools/bench/run_train_bench.sh                      # every model, CPU, 1 and 2 threads, 3 rounds
#   MODELS="resnet20" ROUNDS=5 THREADS="2" tools/bench/run_train_bench.sh
#   MODELS=lenet DEVICE=cuda tools/bench/run_train_bench.sh   # on a GPU (a build with CUDA)
#   BRISK_TRAIN_BENCH=/path/to/train_bench tools/bench/run_train_bench.sh
#                                   # a prebuilt binary (tools/gpu/run_bundle.sh passes the bundled one)
#   PYTHON=/work/venv-torch/bin/python tools/bench/run_train_bench.sh   # the Python with PyTorch
#
# Models: lenet (batches 64,256), resnet20 and airbench (64,128). Other knobs (passed to both
# programs): BATCHES (overrides every model's), WARMUP (5), REPEATS (15), STEPS (4).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

device="${DEVICE:-cpu}"
rounds="${ROUNDS:-3}"
models="${MODELS:-lenet resnet20 airbench}"
threads_list="${THREADS:-1 2}"
python="${PYTHON:-python3}"
flags=(--device "$device" --warmup "${WARMUP:-5}" --repeats "${REPEATS:-15}" --steps "${STEPS:-4}")
batches_of() {  # model
  if [ -n "${BATCHES:-}" ]; then echo "$BATCHES"; elif [ "$1" = lenet ]; then echo 64,256; else echo 64,128; fi
}

binary="${BRISK_TRAIN_BENCH:-}"
if [ -z "$binary" ]; then
  # -c opt also defines NDEBUG, which drops Eigen's internal assertions.
  bazel build -c opt //tools/bench:train_bench >&2
  # Asked of bazel rather than read from the bazel-bin symlink, which other builds repoint.
  binary="$(bazel info -c opt bazel-bin 2>/dev/null)/tools/bench/train_bench"
fi

# One line per run and batch: impl threads round name median min max.
results="$(mktemp)"
trap 'rm -f "$results"' EXIT
run() {  # impl model threads round
  local out args=(--model "$2" --threads "$3" --batches "$(batches_of "$2")" "${flags[@]}")
  if [ "$1" = brisk ]; then
    out="$("$binary" "${args[@]}")"
  else
    out="$("$python" tools/bench/train_bench_torch.py "${args[@]}")"
  fi
  awk -v impl="$1" -v t="$3" -v r="$4" '$1 != "threads" { print impl, t, r, $0 }' <<<"$out" >>"$results"
}
for ((round = 0; round < rounds; ++round)); do
  for model in $models; do
    for threads in $threads_list; do
      if ((round % 2 == 0)); then
        run brisk "$model" "$threads" "$round"
        run pytorch "$model" "$threads" "$round"
      else
        run pytorch "$model" "$threads" "$round"
        run brisk "$model" "$threads" "$round"
      fi
    done
  done
done

"$python" - "$results" "$device" "$rounds" <<'PY'
import collections
import statistics
import sys

path, device, rounds = sys.argv[1], sys.argv[2], sys.argv[3]
runs = collections.defaultdict(list)  # (threads, name, impl) -> [median images/s of one run]
for line in open(path):
    impl, threads, _, name, median, _, _ = line.split()
    runs[(int(threads), name, impl)].append(float(median))
print(f"Training step, {device}, images/s: median of {rounds} rounds [min-max over rounds]")
print(f"{'threads':>7} {'benchmark':<14} {'brisk':>24} {'pytorch':>24} {'brisk/pytorch':>13}")
order = lambda k: (k[1].rsplit("_b", 1)[0], k[0], int(k[1].rsplit("_b", 1)[1]))
for threads, name in sorted({(t, n) for t, n, _ in runs}, key=order):
    cells, medians = [], []
    for impl in ("brisk", "pytorch"):
        values = runs[(threads, name, impl)]
        medians.append(statistics.median(values))
        cells.append(f"{medians[-1]:8.1f} [{min(values):.1f}-{max(values):.1f}]")
    print(f"{threads:>7} {name:<14} {cells[0]:>24} {cells[1]:>24} {medians[0] / medians[1]:>13.2f}")
PY
