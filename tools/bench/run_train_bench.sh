#!/usr/bin/env bash
# Training throughput of the reference models, Brisk (train_bench) next to PyTorch
# (train_bench_torch.py), at the same batch sizes and thread count for both. The two run
# interleaved, alternating which goes first, for several rounds, so that load from other
# processes hits both alike. Prints each run's result as soon as it is measured, then, per
# model, thread count and batch, the median over rounds of each run's median images/s, the
# range of those medians over rounds, and the ratio Brisk / PyTorch (above 1: Brisk is faster);
# on a GPU, a second table of each one's kernels per step and GPU-busy share (train_bench.cc).
# A run that fails or times out is reported and the others go on; its rows say FAILED where no
# round measured them, and the script exits 1.
#
#   tools/bench/run_train_bench.sh                      # every model, CPU, 1 and 2 threads, 3 rounds
#   MODELS="resnet20" ROUNDS=5 THREADS="2" tools/bench/run_train_bench.sh
#   MODELS=lenet DEVICE=cuda tools/bench/run_train_bench.sh   # on a GPU (a build with CUDA)
#   BRISK_TRAIN_BENCH=/path/to/train_bench tools/bench/run_train_bench.sh
#                                   # a prebuilt binary (tools/gpu/run_bundle.sh passes the bundled one)
#   PYTHON=/work/venv-torch/bin/python tools/bench/run_train_bench.sh   # the Python with PyTorch
#   DEVICE=cuda TIME_BUDGET=220 tools/bench/run_train_bench.sh   # no round started that would end later
#
# Models: lenet (batches 64,256), resnet20 and airbench (64,128). AMPS: the precisions, each a
# row (off: float32; bf16, fp16: autocast, fp16 with a GradScaler); default "off bf16" (fp16 on
# request: on a GPU it would add half again to the time). Other knobs (passed to both
# programs): BATCHES (overrides every model's), WARMUP (5), REPEATS (15), STEPS (4),
# CHANNELS_LAST=1 (--channels-last: channels_last models and images, rows named ..._cl).
# CUDA_GRAPH=1 (--cuda-graph: replays of a captured step; names end in _graph; not with fp16).
#
# Time: TIME_BUDGET (seconds, default none) bounds the rounds: a round starts only if it would
# end within the budget, judged by the longest round so far, and no run outlives the budget;
# RUN_TIMEOUT (default 300 s) bounds each run. docs/gpu.md has the round times measured on an
# H200, from which tools/gpu/lease.sh sizes the budget it gives.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

device="${DEVICE:-cpu}"
rounds="${ROUNDS:-3}"
models="${MODELS:-lenet resnet20 airbench}"
threads_list="${THREADS:-1 2}"
amps="${AMPS:-off bf16}"
python="${PYTHON:-python3}"
run_timeout="${RUN_TIMEOUT:-300}"
budget="${TIME_BUDGET:-}"
flags=(--device "$device" --warmup "${WARMUP:-5}" --repeats "${REPEATS:-15}" --steps "${STEPS:-4}")
layout_suffix=""
if [ -n "${CHANNELS_LAST:-}" ]; then
  flags+=(--channels-last)
  layout_suffix="_cl"
fi
graph_suffix=""
if [ "${CUDA_GRAPH:-0}" = 1 ]; then
  flags+=(--cuda-graph)
  graph_suffix="_graph"
fi
batches_of() {  # model
  if [ -n "${BATCHES:-}" ]; then echo "$BATCHES"; elif [ "$1" = lenet ]; then echo 64,256; else echo 64,128; fi
}
now() { echo "${EPOCHREALTIME:-$(date +%s.%N)}"; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }  # seconds since <time>

binary="${BRISK_TRAIN_BENCH:-}"
if [ -z "$binary" ]; then
  # -c opt also defines NDEBUG, which drops Eigen's internal assertions.
  bazel build -c opt //tools/bench:train_bench >&2 || exit 1
  # Asked of bazel rather than read from the bazel-bin symlink, which other builds repoint.
  binary="$(bazel info -c opt bazel-bin 2>/dev/null)/tools/bench/train_bench"
fi

# One line per run and batch: impl threads round name median min max, or ... name FAILED|NOTRUN.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
results="$work/results"
: >"$results"
started="$(now)"
failures=0
not_run=0

# Seconds a run started now may take: RUN_TIMEOUT, cut to what is left of TIME_BUDGET; 0 when
# less than 5 s are left.
run_limit() {
  if [ -z "$budget" ]; then echo "$run_timeout"; return; fi
  awk -v t="$run_timeout" -v s="$started" -v b="$budget" -v n="$(now)" \
    'BEGIN { l = int(s + b - n); print (l < 5 ? 0 : l < t ? l : t) }'
}

# For run(), whose impl, model, threads, round and suffix it reads: records each batch of the
# run as <status> (FAILED or NOTRUN) and prints its row, ending in <text>.
mark_batches() {  # status text
  local batch name
  for batch in $(batches_of "$model" | tr ',' ' '); do
    name="${model}_b${batch}${suffix}"
    echo "$impl $threads $round $name $1" >>"$results"
    printf 'round %d  %-7s %2d threads  %-19s %s\n' "$((round + 1))" "$impl" "$threads" "$name" "$2"
  done
}

run() {  # impl model threads amp round
  local impl="$1" model="$2" threads="$3" amp="$4" round="$5" start limit rc why last suffix
  local args=(--model "$model" --threads "$threads" --amp "$amp" --batches "$(batches_of "$model")" "${flags[@]}")
  local out="$work/out" err="$work/err"
  start="$(now)"
  limit="$(run_limit)"
  suffix=""
  [ "$amp" != off ] && suffix="_$amp"
  suffix+="${layout_suffix}${graph_suffix}"
  if [ "$limit" -eq 0 ]; then
    mark_batches NOTRUN "not run: the time budget ran out"
    not_run=$((not_run + 1))
    return 0
  fi
  local program=("$binary")
  [ "$impl" = pytorch ] && program=("$python" tools/bench/train_bench_torch.py)
  timeout -k 5 "$limit" "${program[@]}" "${args[@]}" >"$out" 2>"$err"
  rc=$?
  if [ "$rc" -eq 0 ] && grep -q "^${model}_b" "$out"; then
    # Only the result rows: train_bench also prints its thread count and, on CUDA, the
    # convolution algorithms it ran ("conv ...").
    awk -v impl="$impl" -v t="$threads" -v r="$round" -v s="$(since "$start")" -v results="$results" \
      -v model="$model" 'index($1, model "_b") == 1 {
      print impl, t, r, $0 >> results
      activity = NF >= 6 ? sprintf("  %.1f kernels/step, GPU busy %.0f%%", $5, 100 * $6) : ""
      printf "round %d  %-7s %2d threads  %-19s %10.1f images/s [%.1f-%.1f]%s  (run: %s s)\n", r + 1, impl, t, $1, $2, $3, $4, activity, s
    }' "$out"
    # The convolution algorithms Brisk ran (CUDA), once per model and precision.
    if [ "$impl" = brisk ] && [ "$round" -eq 0 ]; then grep '^conv ' "$out" | sed 's/^/    /'; fi
    return 0
  fi
  why="exit code $rc"
  { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; } && why="stopped after ${limit} s"
  last="$(cat "$out" "$err" | grep -v '^\s*$' | tail -n 1 | cut -c1-160)"
  [ -n "$last" ] && why+=": $last"
  mark_batches FAILED "FAILED ($why)"
  failures=$((failures + 1))
}

completed=0
longest=0
for ((round = 0; round < rounds; ++round)); do
  if [ -n "$budget" ] && [ "$round" -gt 0 ] &&
     awk -v e="$(since "$started")" -v l="$longest" -v b="$budget" 'BEGIN { exit !(e + l > b) }'; then
    echo "rounds: $round of $rounds run; another (the longest took ${longest} s) would end past TIME_BUDGET=${budget} s"
    break
  fi
  round_start="$(now)"
  order=(brisk pytorch)
  ((round % 2 == 1)) && order=(pytorch brisk)
  for model in $models; do
    for threads in $threads_list; do
      for amp in $amps; do
        for impl in "${order[@]}"; do run "$impl" "$model" "$threads" "$amp" "$round"; done
      done
    done
  done
  completed=$((round + 1))
  longest="$(awk -v a="$longest" -v b="$(since "$round_start")" 'BEGIN { print (b > a ? b : a) }')"
  echo "round $completed of $rounds: $(since "$round_start") s"
done
echo

"$python" - "$results" "$device" "$completed" <<'PY'
import collections
import re
import statistics
import sys

path, device, rounds = sys.argv[1], sys.argv[2], sys.argv[3]
runs = collections.defaultdict(list)  # (threads, name, impl) -> [median images/s of one run]
failed = collections.Counter()  # (threads, name, impl) -> runs that failed
activity = collections.defaultdict(list)  # (threads, name, impl) -> [(kernels/step, busy share)]
for line in open(path):
    fields = line.split()
    impl, threads, name = fields[0], int(fields[1]), fields[3]
    runs[(threads, name, impl)]  # the row exists even when no run measured it
    if fields[4] == "FAILED":
        failed[(threads, name, impl)] += 1
    elif fields[4] != "NOTRUN":
        runs[(threads, name, impl)].append(float(fields[4]))
        if len(fields) >= 9:  # on a GPU: kernels per step and the GPU-busy share
            activity[(threads, name, impl)].append((float(fields[7]), float(fields[8])))
print(f"Training step, {device}, images/s: median of {rounds} rounds [min-max over rounds]")
print(f"{'threads':>7} {'benchmark':<19} {'brisk':>24} {'pytorch':>24} {'brisk/pytorch':>13}")
precisions = {"": 0, "bf16": 1, "fp16": 2}


def order(key):  # model, threads, batch, precision; name: <model>_b<batch>[_bf16|_fp16][_cl][_graph]
    threads, name = key
    model, batch, precision = re.fullmatch(r"(.+)_b(\d+)(?:_(bf16|fp16))?(?:_cl)?(?:_graph)?", name).groups()
    return model, threads, int(batch), precisions[precision or ""]


for threads, name in sorted({(t, n) for t, n, _ in runs}, key=order):
    cells, medians = [], []
    for impl in ("brisk", "pytorch"):
        values = runs[(threads, name, impl)]
        if values:
            medians.append(statistics.median(values))
            cell = f"{medians[-1]:8.1f} [{min(values):.1f}-{max(values):.1f}]"
            if failed[(threads, name, impl)]:
                cell += f" ({failed[(threads, name, impl)]} FAILED)"
        else:
            medians.append(None)
            cell = "FAILED" if failed[(threads, name, impl)] else "not run"
        cells.append(cell)
    ratio = f"{medians[0] / medians[1]:.2f}" if None not in medians else "-"
    print(f"{threads:>7} {name:<19} {cells[0]:>24} {cells[1]:>24} {ratio:>13}")
if activity:
    print()
    print("GPU activity per training step: kernels launched, share of the step the GPU was busy (medians over rounds)")
    print(f"{'benchmark':<19} {'brisk kernels':>13} {'pytorch kernels':>15} {'brisk busy':>10} {'pytorch busy':>12}")
    for threads, name in sorted({(t, n) for t, n, _ in activity}, key=order):
        cells = []
        for column in (0, 1):
            for impl in ("brisk", "pytorch"):
                values = [a[column] for a in activity[(threads, name, impl)]]
                if not values:
                    cells.append("-")
                elif column == 0:
                    cells.append(f"{statistics.median(values):.0f}")
                else:
                    cells.append(f"{100 * statistics.median(values):.0f}%")
        print(f"{name:<19} {cells[0]:>13} {cells[1]:>15} {cells[2]:>10} {cells[3]:>12}")
PY
table=$?
echo "train bench: $(since "$started") s, $completed rounds, $failures failed runs, $not_run not run"
[ "$failures" -eq 0 ] && [ "$table" -eq 0 ]
