#!/usr/bin/env bash
# Test accuracy of ResNet-20 trained with bfloat16 autocast (train --amp bf16) against float32,
# on a synthetic CIFAR-10-format set (tools/data:make_synthetic_cifar10; not CIFAR-10), for
# several seeds of the weights and the data order. Prints each run's test accuracy after the
# last epoch and, per seed, bf16 minus float32 in points; then the mean of each and of the
# differences. The two precisions of a seed run side by side, one thread each.
#
#   tools/bench/run_amp_accuracy.sh                    # seeds 0 1 2, 6 epochs, CPU
#   SEEDS="0 1 2 3 4" EPOCHS=8 tools/bench/run_amp_accuracy.sh
#   DEVICE=cuda AMP=fp16 tools/bench/run_amp_accuracy.sh   # on a GPU (a build with CUDA)
#
# Knobs: SEEDS, EPOCHS (6), TRAIN (4000 images), TEST (1000), NOISE (240: the synthetic set's
# pixel noise; lower is easier), BATCH (128), LR (0.1, Nesterov, cosine), AMP (bf16), DEVICE (cpu).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

seeds="${SEEDS:-0 1 2}"
amp="${AMP:-bf16}"
bazel build -c opt //tools/train:train //tools/data:make_synthetic_cifar10 >&2
bin="$(bazel info -c opt bazel-bin 2>/dev/null)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$bin/tools/data/make_synthetic_cifar10" --output-dir "$work/data" --train-size "${TRAIN:-4000}" \
  --test-size "${TEST:-1000}" --noise "${NOISE:-240}" >&2

# The last epoch's test_acc of one run's metrics file, in percent.
final_accuracy() { awk -F, 'NR > 1 { acc = $5 } END { printf "%.1f", 100 * acc }' "$1"; }

printf '%4s %8s %8s %10s\n' seed float32 "$amp" difference
for seed in $seeds; do
  for precision in off "$amp"; do
    OMP_NUM_THREADS=1 "$bin/tools/train/train" --dataset cifar10 --data-dir "$work/data" --model resnet20 \
      --device "${DEVICE:-cpu}" --threads 1 --epochs "${EPOCHS:-6}" --batch-size "${BATCH:-128}" --lr "${LR:-0.1}" \
      --nesterov --seed "$seed" --amp "$precision" --metrics-csv "$work/$seed-$precision.csv" \
      >"$work/$seed-$precision.log" 2>&1 &
  done
  wait
  base="$(final_accuracy "$work/$seed-off.csv")" mixed="$(final_accuracy "$work/$seed-$amp.csv")"
  awk -v s="$seed" -v b="$base" -v m="$mixed" 'BEGIN { printf "%4s %8.1f %8.1f %+10.1f\n", s, b, m, m - b }'
done | tee "$work/table"
awk '{ b += $2; m += $3; d += $4; n++ } END { printf "%4s %8.2f %8.2f %+10.2f\n", "mean", b / n, m / n, d / n }' \
  "$work/table"
