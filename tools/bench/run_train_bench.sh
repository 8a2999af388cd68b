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
# Models: lenet (batches 64,256), resnet20 and airbench (64,128). AMPS: the precisions, each a
# row (off: float32; bf16, fp16: autocast, fp16 with a GradScaler); default "off bf16" on the
# CPU and "off bf16 fp16" on CUDA. Other knobs (passed to both programs): BATCHES (overrides
# every model's), WARMUP (5), REPEATS (15), STEPS (4).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

device="${DEVICE:-cpu}"
rounds="${ROUNDS:-3}"
models="${MODELS:-lenet resnet20 airbench}"
threads_list="${THREADS:-1 2}"
if [ "$device" = cpu ]; then amps="${AMPS:-off bf16}"; else amps="${AMPS:-off bf16 fp16}"; fi
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
run() {  # impl model threads amp round
  local out args=(--model "$2" --threads "$3" --amp "$4" --batches "$(batches_of "$2")" "${flags[@]}")
  if [ "$1" = brisk ]; then
    out="$("$binary" "${args[@]}")"
  else
    out="$("$python" tools/bench/train_bench_torch.py "${args[@]}")"
  fi
  awk -v impl="$1" -v t="$3" -v r="$5" '$1 != "threads" { print impl, t, r, $0 }' <<<"$out" >>"$results"
}
for ((round = 0; round < rounds; ++round)); do
  for model in $models; do
    for threads in $threads_list; do
      for amp in $amps; do
        if ((round % 2 == 0)); then
          run brisk "$model" "$threads" "$amp" "$round"
          run pytorch "$model" "$threads" "$amp" "$round"
        else
          run pytorch "$model" "$threads" "$amp" "$round"
          run brisk "$model" "$threads" "$amp" "$round"
        fi
      done
    done
  done
done

"$python" - "$results" "$device" "$rounds" <<'PY'
import collections
import re
import statistics
import sys

path, device, rounds = sys.argv[1], sys.argv[2], sys.argv[3]
runs = collections.defaultdict(list)  # (threads, name, impl) -> [median images/s of one run]
for line in open(path):
    impl, threads, _, name, median, _, _ = line.split()
    runs[(int(threads), name, impl)].append(float(median))
print(f"Training step, {device}, images/s: median of {rounds} rounds [min-max over rounds]")
print(f"{'threads':>7} {'benchmark':<19} {'brisk':>24} {'pytorch':>24} {'brisk/pytorch':>13}")
precisions = {"": 0, "bf16": 1, "fp16": 2}


def order(key):  # model, threads, batch, precision; name: <model>_b<batch>[_bf16|_fp16]
    threads, name = key
    model, batch, precision = re.fullmatch(r"(.+)_b(\d+)(?:_(bf16|fp16))?", name).groups()
    return model, threads, int(batch), precisions[precision or ""]


for threads, name in sorted({(t, n) for t, n, _ in runs}, key=order):
    cells, medians = [], []
    for impl in ("brisk", "pytorch"):
        values = runs[(threads, name, impl)]
        medians.append(statistics.median(values))
        cells.append(f"{medians[-1]:8.1f} [{min(values):.1f}-{max(values):.1f}]")
    print(f"{threads:>7} {name:<19} {cells[0]:>24} {cells[1]:>24} {medians[0] / medians[1]:>13.2f}")
PY
