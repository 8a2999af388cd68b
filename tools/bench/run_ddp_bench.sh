#!/usr/bin/env bash
# DistributedDataParallel on CPU with 2 ranks over Gloo (the launcher) and over MPI (mpirun;
# BACKENDS="gloo" for Gloo alone): LeNet-5 and a ~10M-parameter MLP at
# per-rank batch 64 and 256, the step time with and without DDP and the share of the
# all-reduce hidden behind backward. Bucket caps: LeNet 0.01/0.01 MB (three buckets), the MLP
# 4/1 MB (one 1024x1024 layer per bucket); docs/ddp.md says why. Timings on a shared machine
# vary from run to run, so every configuration runs ROUNDS times (rounds interleaved, so load
# changes hit all of them) and the summary gives the median over rounds, with the load
# average of each run.
#
#   ROUNDS=5 tools/bench/run_ddp_bench.sh [extra ddp_bench flags other than the caps, e.g. --steps 40]
#   BRISK_BIN=<a bazel-bin> tools/bench/run_ddp_bench.sh   # prebuilt -c opt launch and ddp_bench,
#       e.g. from a CPU-only build: CUDA_PATH=/nonexistent bazel --output_base=/tmp/ob_cpu build -c opt ...
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

rounds="${ROUNDS:-3}"
backends="${BACKENDS:-gloo mpi}"
bin="${BRISK_BIN:-}"
if [ -z "$bin" ]; then
  bazel build -c opt --jobs=2 //tools/bench:ddp_bench //tools/launch >&2
  bin="$(bazel info -c opt bazel-bin 2>/dev/null)"
fi
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for round in $(seq "$rounds"); do
  for model in lenet mlp; do
    caps=(--bucket-cap-mb 4 --first-bucket-cap-mb 1)
    [[ $model == lenet ]] && caps=(--bucket-cap-mb 0.01 --first-bucket-cap-mb 0.01)
    for batch in 64 256; do
      for backend in $backends; do
        echo "== round $round $backend:$model batch $batch, load average $(cut -d' ' -f1-3 /proc/loadavg)" |
          tee -a "$log"
        if [[ $backend == mpi ]]; then
          mpirun --allow-run-as-root --oversubscribe -np 2 "$bin/tools/bench/ddp_bench" --backend mpi \
            --model "$model" --batch "$batch" "${caps[@]}" "$@" | tee -a "$log"
        else
          "$bin/tools/launch/launch" --nproc-per-node 2 "$bin/tools/bench/ddp_bench" --model "$model" \
            --batch "$batch" "${caps[@]}" "$@" | sed 's/^\[rank 0\] //' | tee -a "$log"
        fi
      done
    done
  done
done

echo
echo "median over $rounds rounds: step without DDP / with DDP (ms), all-reduce hidden over all steps / in the median step (%)"
awk '
  /^== round/ { b = $6; sub(",", "", b); key = $4 " batch " b }
  /step without DDP/ { local[key] = local[key] " " $4 }
  /step with DDP/ { ddp[key] = ddp[key] " " $4 }
  /all-reduce hidden/ { hidden[key] = hidden[key] " " $3 }
  /hidden in median step/ { step[key] = step[key] " " $5 }
  function median(list,   n, v, i, j, t) {
    n = split(list, v, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
    return v[int((n + 1) / 2)]
  }
  END {
    for (k in local) {
      printf "  %-16s %9.1f / %9.1f ms   hidden %5.1f / %5.1f %%\n", k, median(local[k]), median(ddp[k]), median(hidden[k]),
             median(step[k])
    }
  }
' "$log" | sort
