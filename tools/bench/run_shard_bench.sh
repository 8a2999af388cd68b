#!/usr/bin/env bash
# DDP, ZeRO-1, ZeRO-2 and full sharding (fully_shard) on CPU over Gloo (shard_bench.cc says what
# is measured and how):
#  - memory: the peak bytes allocated per rank during one Adam training step of a 50.3M-parameter
#    model (48 x Linear(1024, 1024, bias=false), batch 4), one process per rank, each mode at N = 1, 2 and 4
#    ranks, beside the ZeRO formulas for float32 Adam (this run) and the paper's mixed precision;
#  - speed: at N = 2 the four layouts stepped in turn in one process
#    (SPEED_LAYERS Linear(1024, 1024) layers, default 12: 12.6M parameters; batch 64 per rank),
#    ROUNDS runs (default 3), the median over rounds of each run's median step time and the
#    share of gradient communication hidden behind compute.
# Memory: 16 bytes per parameter for a DDP rank, about 0.8 GB each, 3.2 GB for N = 4; the runs
# take one process group at a time.
#
#   tools/bench/run_shard_bench.sh
#   MEASURE=memory tools/bench/run_shard_bench.sh          # or MEASURE=speed: one of the two
#   BRISK_BIN=<a bazel-bin> tools/bench/run_shard_bench.sh   # prebuilt -c opt launch and shard_bench
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

rounds="${ROUNDS:-3}"
measure="${MEASURE:-memory speed}"
speed_layers="${SPEED_LAYERS:-12}"
bin="${BRISK_BIN:-}"
if [ -z "$bin" ]; then
  bazel build -c opt --jobs=2 //tools/bench:shard_bench //tools/launch >&2
  bin="$(bazel info -c opt bazel-bin 2>/dev/null)"
fi
run() {  # ranks, shard_bench flags...
  local n="$1"
  shift
  "$bin/tools/launch/launch" --nproc-per-node "$n" "$bin/tools/bench/shard_bench" "$@" | sed 's/^\[rank 0\] //'
}
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

[[ $measure == *memory* ]] && for n in 1 2 4; do
  for mode in ddp zero1 zero2 full; do
    echo "== memory $mode N=$n, load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$log"
    run "$n" --measure memory --mode "$mode" | tee -a "$log"
  done
done
if [[ $measure == *speed* ]]; then
  for round in $(seq "$rounds"); do
    echo "== speed round $round, load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$log"
    run 2 --measure speed --layers "$speed_layers" --batch 64 --steps 10 | tee -a "$log"
  done
fi

[[ $measure == *memory* ]] && {
echo
echo "Peak allocated per rank during an Adam step, MB (Ψ = 50.3M float32 parameters; largest unit 4.2 MB)."
echo "Check: peak <= 1.1 x (float32 formula + largest unit) and >= 0.9 x formula. Brisk trains float32 here,"
echo "so the float32 column applies; the paper's mixed-precision (K = 12) figures are for reference."
awk '
  /^== memory/ { mode = $3; n = substr($4, 3) + 0 }
  /peak during a step/ { peak[mode, n] = $5 }
  /formula \(float32\)/ { formula[mode, n] = $3; ratio[mode, n] = $12; verdict[mode, n] = ($13 == "within" ? "ok" : "OVER") }
  /paper \(mixed/ { paper[mode, n] = $4 }
  END {
    printf "  %-6s %2s  %10s  %17s  %10s  %17s  %s\n", "mode", "N", "measured", "float32 formula", "ratio", "paper (mixed)", "check"
    split("ddp zero1 zero2 full", modes, " ")
    for (i = 1; i <= 4; i++) for (n = 1; n <= 4; n *= 2) {
      m = modes[i]
      if ((m, n) in peak) {
        printf "  %-6s %2d  %10.1f  %17.1f  %10.3f  %17.1f  %s\n", m, n, peak[m, n], formula[m, n], ratio[m, n], paper[m, n], verdict[m, n]
      }
    }
  }
' "$log"
}
if [[ $measure == *speed* ]]; then
  echo
  echo "Step time at N = 2 (batch 64 per rank), median over $rounds rounds of each round's median; communication hidden"
  echo "behind compute over all measured steps (all-reduce for DDP and ZeRO-1's gradients, reduce-scatter for ZeRO-2,"
  echo "all-gather + reduce-scatter for full)."
  awk '
    /^== speed/ { round++ }
    /^  (ddp|zero1|zero2|full) +step/ { t[$1] = t[$1] " " $3; r[$1] = r[$1] " " substr($5, 2); c[$1] = c[$1] " " $9; h[$1] = h[$1] " " $12 }
    function median(list,   n, v, i, j, x) {
      n = split(list, v, " ")
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { x = v[i]; v[i] = v[j]; v[j] = x }
      return v[int((n + 1) / 2)]
    }
    END {
      printf "  %-6s  %10s  %10s  %18s  %8s\n", "mode", "step ms", "vs DDP", "communication ms", "hidden %"
      split("ddp zero1 zero2 full", modes, " ")
      for (i = 1; i <= 4; i++) {
        m = modes[i]
        printf "  %-6s  %10.1f  %9.2fx  %18.1f  %8.1f\n", m, median(t[m]), median(r[m]), median(c[m]), median(h[m])
      }
    }
  ' "$log"
fi
