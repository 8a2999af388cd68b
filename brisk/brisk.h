#pragma once
// Everything a training program uses, in one include (as torch/torch.h): tensors and their
// differentiable ops, nn, optim, data, checkpoints, distributed training (init_distributed,
// process groups, DistributedDataParallel, metrics reduced over ranks,
// ZeroRedundancyOptimizer, Join for uneven inputs), the training loop (train::train_epoch,
// evaluate), the profiler, the CPU thread count (set_num_threads), the CUDA device queries, and
// the extension API (custom autograd Functions, gradcheck, autograd::grad, anomaly mode,
// registered ops with per-device kernels, the simulated device; docs/extending.md).
// Bazel: deps = ["@brisk//:brisk"]; CMake: target_link_libraries(app Brisk::brisk)
// (docs/install.md). Brisk's own sources include the headers they use, never this one, so
// that a change in one layer recompiles only what depends on it.
#include "autograd/anomaly_mode.h"
#include "autograd/engine.h"
#include "autograd/function.h"
#include "autograd/gradcheck.h"
#include "brisk/requires_cxx17.h"
#include "checkpoint/checkpoint.h"
#include "checkpoint/compatibility.h"
#include "checkpoint/safetensors.h"
#include "checkpoint/serialize.h"
#include "checkpoint/sharded/save_sharded.h"
#include "checkpoint/sharded/sharded_checkpoint.h"
#include "checkpoint/sharded/sharded_reader.h"
#include "cuda/device.h"
#include "data/data.h"
#include "distributed/all_reduce_metrics.h"
#include "distributed/ddp/distributed_data_parallel.h"
#include "distributed/distributed.h"
#include "distributed/fsdp/clip_grad_norm.h"
#include "distributed/fsdp/fsdp_checkpoint.h"
#include "distributed/fsdp/fully_shard.h"
#include "distributed/init_distributed.h"
#include "distributed/join.h"
#include "distributed/mesh/device_mesh.h"
#include "distributed/nn/sync_batchnorm.h"
#include "distributed/tensor_parallel/column_parallel_linear.h"
#include "distributed/tensor_parallel/full_state_dict.h"
#include "distributed/tensor_parallel/mappings.h"
#include "distributed/tensor_parallel/row_parallel_linear.h"
#include "distributed/tensor_parallel/vocab_parallel_cross_entropy.h"
#include "distributed/tensor_parallel/vocab_parallel_embedding.h"
#include "distributed/zero/zero_redundancy_optimizer.h"
#include "distributed/zero2/zero2_data_parallel.h"
#include "library/library.h"
#include "nn/nn.h"
#include "optim/optim.h"
#include "profiler/profiler.h"
#include "tensor/accessor.h"
#include "tensor/generator.h"
#include "tensor/graphs/graph.h"
#include "tensor/indexing.h"
#include "tensor/memory.h"
#include "tensor/parallel.h"
#include "tensor/sim/sim_memory.h"
#include "tensor/tensor.h"
#include "train/distributed_run.h"
#include "train/graphed_step.h"
#include "train/metrics.h"
#include "train/train_loop.h"
