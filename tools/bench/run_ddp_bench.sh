#!/usr/bin/env bash
# DistributedDataParallel on CPU with 2 ranks over Gloo: LeNet-5 and a ~10M-parameter MLP,
# step time with and without DDP and the share of the all-reduce hidden behind backward.
#
#   tools/bench/run_ddp_bench.sh [extra ddp_bench flags, e.g. --steps 40]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

bazel build -c opt --jobs=2 //tools/bench:ddp_bench //tools/launch >&2
bin="$(bazel info -c opt bazel-bin 2>/dev/null)"
for model in lenet mlp; do
  "$bin/tools/launch/launch" --nproc-per-node 2 "$bin/tools/bench/ddp_bench" --model "$model" "$@"
done
