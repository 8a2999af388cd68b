#!/usr/bin/env bash
# Sets up the machine (tools/setup.sh) and runs Brisk's main job, optimized: LeNet-5 trained
# on Fashion-MNIST for 2 epochs (tools/train/train_mnist.cc, docs/training.md), on a GPU when
# one is usable, else on the CPU. It writes runs/main_job/metrics.csv and
# runs/main_job/checkpoint.safetensors (another directory: BRISK_RUN_DIR=...).
# Arguments go to the program and override the flags below: tools/main_job.sh --epochs 1
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tools/setup.sh
run_dir="${BRISK_RUN_DIR:-runs/main_job}"
mkdir -p "$run_dir"
exec bazel run -c opt --jobs="${BRISK_JOBS:-2}" //tools/train:train_mnist -- \
  --model lenet --epochs 2 --batch-size 64 --lr 0.05 --momentum 0.9 --lr-schedule cosine \
  --metrics-csv "$run_dir/metrics.csv" --save "$run_dir/checkpoint.safetensors" "$@"
