#!/usr/bin/env bash
# Sets up the machine (tools/setup.sh) and runs Brisk's main job, optimized: LeNet-5 trained
# on Fashion-MNIST for 2 epochs by 2 processes with DistributedDataParallel
# (tools/train/train.cc under tools/launch; docs/training.md, "Distributed"): over Gloo
# on the CPU, or, when GPUs are present and the build has CUDA, over NCCL with one process
# per GPU. Rank 0 writes runs/main_job/metrics.csv and runs/main_job/checkpoint.safetensors
# (another directory: BRISK_RUN_DIR=...; another process count: BRISK_NPROC=...).
# Arguments go to the program and override the flags below: tools/main_job.sh --epochs 1
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tools/setup.sh
run_dir="${BRISK_RUN_DIR:-runs/main_job}"
mkdir -p "$run_dir"
bazel build -c opt --jobs="${BRISK_JOBS:-2}" //tools/launch //tools/train:train
bin="$(bazel info -c opt bazel-bin)"
gpus=0
if command -v nvidia-smi >/dev/null 2>&1; then gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true); fi
# The program's --device auto takes GPU LOCAL_RANK when CUDA is usable, else the CPU.
nproc="${BRISK_NPROC:-$((gpus > 0 ? gpus : 2))}"
exec "$bin/tools/launch/launch" --nproc-per-node "$nproc" "$bin/tools/train/train" \
  --dataset fashion-mnist --model lenet --epochs 2 --batch-size 32 \
  --lr 0.03 --momentum 0.9 --lr-schedule cosine --label-smoothing 0.1 \
  --metrics-csv "$run_dir/metrics.csv" --save "$run_dir/checkpoint.safetensors" "$@"
