#!/usr/bin/env bash
# GPT training throughput and peak memory per rank under the parallel layouts, Brisk
# (parallel_bench.cc) beside PyTorch (parallel_bench_torch.py), on the CPU over Gloo, one process
# per rank. Both files' headers say what each layout runs and what is measured. Each round runs
# every row of every model, Brisk then PyTorch, so that both see the same machine load; the
# table holds the median over ROUNDS of each run's step time (itself the largest over ranks of
# their median step), the largest peak RSS of the rounds, and the median measured bubble.
#
#   tools/bench/run_parallel_bench.sh
#   MODELS="mini small" ROUNDS=2 BATCH=8 SEQ=64 MICROBATCHES=4 STEPS=4 tools/bench/run_parallel_bench.sh
#   BRISK_BIN=<a bazel-bin> tools/bench/run_parallel_bench.sh   # prebuilt -c opt launch and parallel_bench
#   TABLE_FROM=<a saved output> tools/bench/run_parallel_bench.sh  # the table of an earlier run, nothing run
#
# Threads: THREADS intra-op threads per process on both sides, 1 by default: on this shared,
# loaded 2-core machine a second OpenMP thread made Brisk's one-process tiny step 40x slower
# (14 ms -> 580 ms: each parallel region waits for a thread the scheduler has parked).
# Brisk's whole tensor-parallel GPT and the combinations run the composed GPT
# (models::ParallelGPT, parallel_bench's mesh layout); each of its lines carries loss_first and
# loss_last, the same as the single row's up to float32 rounding (the same model and batch).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

models="${MODELS:-mini small}"
rounds="${ROUNDS:-3}"
batch="${BATCH:-8}"
seq="${SEQ:-64}"
microbatches="${MICROBATCHES:-4}"
warmup="${WARMUP:-1}"
steps="${STEPS:-4}"
threads="${THREADS:-1}"
python="${PYTHON:-/work/torch-venv/bin/python}"
bin="${BRISK_BIN:-}"
if [ -z "$bin" ] && [ -z "${TABLE_FROM:-}" ]; then
  bazel build -c opt --jobs=2 //tools/bench:parallel_bench //tools/launch >&2
  bin="$(bazel info -c opt bazel-bin 2>/dev/null)"
fi

# label | ranks | Brisk's flags | PyTorch's flags
rows=(
  "single|1|--layout single|--layout single"
  "dp2|2|--layout dp|--layout dp"
  "dp4|4|--layout dp|--layout dp"
  "tp2 (GPT)|2|--layout mesh --tp 2|--layout tp"
  "blocks, 1 process|1|--layout tp|--layout tp_blocks"
  "blocks, tp2|2|--layout tp|--layout tp_blocks"
  "pp2 GPipe|2|--layout pp --schedule gpipe|--layout pp --schedule gpipe"
  "pp2 1F1B|2|--layout pp --schedule 1f1b|--layout pp --schedule 1f1b"
  "pp2 interleaved v2|2|--layout pp --schedule interleaved|--layout pp --schedule interleaved"
  "dp2 x tp2|4|--layout mesh --dp 2 --tp 2|--layout dp_tp"
  "dp2 x pp2 1F1B|4|--layout mesh --dp 2 --pp 2 --schedule 1f1b|--layout dp_pp --schedule 1f1b"
  "dp2 x tp2 x pp2 1F1B|8|--layout mesh --dp 2 --tp 2 --pp 2 --schedule 1f1b|--layout dp_tp_pp --schedule 1f1b"
)

if [ -n "${TABLE_FROM:-}" ]; then
  log="$TABLE_FROM"
else
log="$(mktemp)"
errors="$(mktemp)"
trap 'rm -f "$log" "$errors"' EXIT
failed() {  # side model: a row for a run that printed none, with the last line of its errors
  echo "parallel_bench side=$1 model=$2 failed reason=$(tail -n 1 "$errors" | tr ' ' '_')"
}
common() {  # model
  echo "--model $1 --batch $batch --seq $seq --microbatches $microbatches --warmup $warmup --steps $steps" \
    "--threads $threads"
}
for round in $(seq "$rounds"); do
  echo "== round $round, load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$log"
  for model in $models; do
    for row in "${rows[@]}"; do
      IFS='|' read -r label ranks brisk torch <<<"$row"
      tag="row=${label// /_} "
      # shellcheck disable=SC2046,SC2086
      out="$("$bin/tools/launch/launch" --nproc-per-node "$ranks" "$bin/tools/bench/parallel_bench" \
        $(common "$model") $brisk 2>"$errors" | grep '^\[rank 0\] parallel_bench' | sed 's/^\[rank 0\] //')" ||
        out="$(failed brisk "$model")"
      echo "$tag$out" | tee -a "$log"
      # shellcheck disable=SC2046,SC2086
      out="$("$python" tools/bench/parallel_bench_torch.py --ranks "$ranks" $(common "$model") $torch \
        2>"$errors" | grep '^parallel_bench')" || out="$(failed torch "$model")"
      echo "$tag$out" | tee -a "$log"
    done
  done
done
echo "== end, load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$log"
fi

echo
echo "GPT training on the CPU over Gloo: global batch $batch x $seq tokens, float32 AdamW, $warmup + $steps steps,"
echo "pp: $microbatches microbatches; $threads thread(s) per process; median over $rounds rounds. tok/s: tokens per second of the global batch;"
echo "ratio: Brisk / PyTorch. RSS: peak resident MB per rank (largest rank; in parentheses the peak before the"
echo "model: program, libraries, process group); alloc: Brisk's peak MB held by tensors (PyTorch keeps no CPU count)."
awk '
  /^== round/ { next }
  /^row=/ {
    row = substr($1, 5); side = ""; model = ""
    for (i = 2; i <= NF; i++) {
      split($i, kv, "=")
      if (kv[1] == "side") side = kv[2]
      else if (kv[1] == "model") model = kv[2]
      else if (kv[1] == "ranks") ranks[model, row] = kv[2]
      else if (kv[1] == "parameters") params[model] = kv[2]
      else if (kv[1] == "step_ms") ms[model, row, side] = ms[model, row, side] " " kv[2]
      else if (kv[1] == "rss_mb" && kv[2] + 0 > rss[model, row, side] + 0) rss[model, row, side] = kv[2]
      else if (kv[1] == "rss_base_mb") base[model, row, side] = kv[2]
      else if (kv[1] == "alloc_mb" && kv[2] != "-" && kv[2] + 0 > alloc[model, row, side] + 0) alloc[model, row, side] = kv[2]
      else if (kv[1] == "bubble_formula") formula[model, row] = kv[2]
      else if (kv[1] == "bubble_measured" && kv[2] != "-") bubble[model, row] = bubble[model, row] " " kv[2]
      else if (kv[1] == "reason" && $0 !~ / failed /) note[model, row, side] = "n/a: " kv[2]
      else if (kv[1] == "n/a") note[model, row, side] = "n/a"
    }
    if ($0 ~ / failed( |$)/) { fails[model, row, side]++; why[model, row, side] = $NF }
    if (!((model, row) in seen)) { seen[model, row] = 1; order[++n] = model SUBSEP row }
    batch_tokens = '"$batch"' * '"$seq"'
  }
  function median(list,   k, v, i, j, x) {
    k = split(list, v, " ")
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] + 0 < v[i] + 0) { x = v[i]; v[i] = v[j]; v[j] = x }
    return k ? v[int(k / 2) + 1] : ""  # the upper middle of an even count, as timing.h
  }
  function cell(model, row, side) {
    if ((model, row, side) in note) return note[model, row, side]
    if (!((model, row, side) in ms)) return "failed in every round: " why[model, row, side]
    return sprintf("%.0f", batch_tokens / (median(ms[model, row, side]) / 1e3))
  }
  END {
    printf "  %-6s %-20s %5s  %9s %9s %6s  %15s %15s %8s  %8s %8s\n", "model", "row", "ranks", "Brisk", "PyTorch", "ratio",
      "Brisk RSS", "PyTorch RSS", "alloc", "bubble", "measured"
    printf "  %-6s %-20s %5s  %9s %9s %6s  %15s %15s %8s  %8s %8s\n", "", "", "", "tok/s", "tok/s", "", "MB", "MB", "MB",
      "formula", "Brisk"
    for (i = 1; i <= n; i++) {
      split(order[i], key, SUBSEP); model = key[1]; row = key[2]
      b = cell(model, row, "brisk"); t = cell(model, row, "torch")
      ratio = (b ~ /^[0-9.]+$/ && t ~ /^[0-9.]+$/) ? sprintf("%.2f", b / t) : "-"
      br = ((model, row, "brisk") in rss) ? sprintf("%.0f (%.0f)", rss[model, row, "brisk"], base[model, row, "brisk"]) : "-"
      tr = ((model, row, "torch") in rss) ? sprintf("%.0f (%.0f)", rss[model, row, "torch"], base[model, row, "torch"]) : "-"
      al = ((model, row, "brisk") in alloc) ? sprintf("%.1f", alloc[model, row, "brisk"]) : "-"
      fm = ((model, row) in formula) && formula[model, row] != "-" ? sprintf("%.3f", formula[model, row]) : "-"
      ms_b = ((model, row) in bubble) ? sprintf("%.3f", median(bubble[model, row])) : "-"
      label = row; gsub("_", " ", label)
      if (b !~ /^[0-9.]+$/ || t !~ /^[0-9.]+$/) {
        printf "  %-6s %-20s %5s  %9s %9s %6s  %15s %15s %8s  %8s %8s\n", model, label, ranks[model, row],
          (b ~ /^[0-9.]+$/ ? b : "*"), (t ~ /^[0-9.]+$/ ? t : "*"), ratio, br, tr, al, fm, ms_b
        if (b !~ /^[0-9.]+$/) printf "  %6s %-20s        * Brisk: %s\n", "", "", b
        if (t !~ /^[0-9.]+$/) printf "  %6s %-20s        * PyTorch: %s\n", "", "", t
      } else {
        printf "  %-6s %-20s %5s  %9s %9s %6s  %15s %15s %8s  %8s %8s\n", model, label, ranks[model, row], b, t, ratio, br,
          tr, al, fm, ms_b
      }
      if ((model, row, "brisk") in fails) printf "  %6s %-20s        Brisk failed in %d round(s): %s\n", "", "", fails[model, row, "brisk"], why[model, row, "brisk"]
      if ((model, row, "torch") in fails) printf "  %6s %-20s        PyTorch failed in %d round(s): %s\n", "", "", fails[model, row, "torch"], why[model, row, "torch"]
    }
    for (m in params) printf "  %s: %.2fM parameters\n", m, params[m] / 1e6
  }
' "$log"
