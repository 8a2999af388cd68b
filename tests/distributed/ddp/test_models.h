#pragma once
// Small models and data for the DistributedDataParallel and ZeRO tests (in-process threads
// and multi-process), with the helpers that compare them to their single-process references.
#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "distributed/process_group.h"
#include "nn/nn.h"
#include "nn/utils/checkpoint.h"
#include "tensor/generator.h"
#include "tensor/native/ops.h"

namespace brisk::dist::testing {

namespace F = nn::functional;

// fc1 -> relu -> (fc2 | branch): `use_branch` picks the head, leaving the other unused.
struct BranchNetImpl : nn::Module {
  BranchNetImpl() {
    fc1 = register_module("fc1", nn::Linear(8, 16));
    fc2 = register_module("fc2", nn::Linear(16, 4));
    branch = register_module("branch", nn::Linear(16, 4));
  }
  Tensor forward(const Tensor& x, bool use_branch = false) {
    Tensor h = F::relu(fc1(x));
    return use_branch ? branch(h) : fc2(h);
  }
  nn::Linear fc1{nullptr}, fc2{nullptr}, branch{nullptr};
};
BRISK_MODULE(BranchNet);

// fc1 -> relu -> fc2 -> relu -> fc3 with the first two blocks under activation checkpointing
// (recomputed in backward), or run plainly when `checkpointed` is false (the reference).
struct CheckpointedNetImpl : nn::Module {
  CheckpointedNetImpl() {
    fc1 = register_module("fc1", nn::Linear(8, 16));
    fc2 = register_module("fc2", nn::Linear(16, 12));
    fc3 = register_module("fc3", nn::Linear(12, 4));
  }
  Tensor forward(const Tensor& x) {
    auto block = [this](nn::Linear fc, const Tensor& in) {
      if (!checkpointed) return F::relu(fc(in));
      return nn::utils::checkpoint([fc](const Tensor& t) mutable { return F::relu(fc(t)); }, in);
    };
    return fc3(block(fc2, block(fc1, x)));
  }
  nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
  bool checkpointed = true;
};
BRISK_MODULE(CheckpointedNet);

// Registered in the reverse of the order forward uses the layers, so the gradients become
// ready in registration order (the opposite of what the initial buckets assume).
struct ReversedNetImpl : nn::Module {
  ReversedNetImpl() {
    late = register_module("late", nn::Linear(8, 4));
    mid = register_module("mid", nn::Linear(8, 8));
    early = register_module("early", nn::Linear(8, 8));
  }
  Tensor forward(const Tensor& x) { return late(F::relu(mid(F::relu(early(x))))); }
  nn::Linear late{nullptr}, mid{nullptr}, early{nullptr};
};
BRISK_MODULE(ReversedNet);

// conv -> BatchNorm2d -> relu -> linear over [N, 2, 4, 4] inputs.
struct BatchNormNetImpl : nn::Module {
  BatchNormNetImpl() {
    conv = register_module("conv", nn::Conv2d(nn::Conv2dOptions(2, 3, 3).padding(1)));
    bn = register_module("bn", nn::BatchNorm2d(3));
    fc = register_module("fc", nn::Linear(48, 4));
  }
  Tensor forward(const Tensor& x) { return fc(F::flatten(F::relu(bn(conv(x))), 1)); }
  nn::Conv2d conv{nullptr};
  nn::BatchNorm2d bn{nullptr};
  nn::Linear fc{nullptr};
};
BRISK_MODULE(BatchNormNet);

// conv -> relu -> conv -> relu -> linear over [N, 2, 4, 4] inputs, kept channels_last: its
// convolution weights and activations (and so their gradients) are NHWC.
struct ChannelsLastNetImpl : nn::Module {
  ChannelsLastNetImpl() {
    conv1 = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(2, 4, 3).padding(1)));
    conv2 = register_module("conv2", nn::Conv2d(nn::Conv2dOptions(4, 3, 3).padding(1)));
    fc = register_module("fc", nn::Linear(48, 4));
    to(MemoryFormat::ChannelsLast);
  }
  Tensor forward(const Tensor& x) {
    Tensor h = F::relu(conv1(x.contiguous(MemoryFormat::ChannelsLast)));
    return fc(F::flatten(F::relu(conv2(h)), 1));
  }
  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  nn::Linear fc{nullptr};
};
BRISK_MODULE(ChannelsLastNet);

// `rows` inputs of `shape` (after the batch dim) and labels in [0, classes), from `seed`.
struct Batch {
  Tensor x, y;
  Batch rows(int64_t start, int64_t count) const {
    return {native::narrow(x, 0, start, count), native::narrow(y, 0, start, count)};
  }
  Batch on(Device device) const { return {native::to(x, device, x.dtype()), native::to(y, device, y.dtype())}; }
};
inline Batch make_batch(int64_t rows, Shape shape, int64_t classes, uint64_t seed) {
  Generator gen(seed);
  Shape full{rows};
  full.insert(full.end(), shape.begin(), shape.end());
  Tensor x = randn(full, {}, &gen);
  Tensor y = native::argmax(randn({rows, classes}, {}, &gen), 1, false);
  return {x, y};
}

// Deep copies of the module's state (parameters and buffers), by name.
inline nn::StateDict snapshot(const nn::Module& module) {
  nn::StateDict out;
  for (const auto& [name, t] : module.state_dict()) out.insert(name, native::clone(t));
  return out;
}

// Loads `state` and, on rank > 0, shifts every floating parameter by `rank`, so that only
// DistributedDataParallel's broadcast can make the replicas equal; then moves the module to
// `device` (the process group's).
inline void load_perturbed(nn::Module& module, const nn::StateDict& state, int rank, Device device = kCPU) {
  module.load_state_dict(state);
  if (rank != 0) {
    NoGradGuard no_grad;
    for (Tensor p : module.parameters()) p.add_(static_cast<double>(rank));
  }
  module.to(device);
}

// The largest |a - b| over the floating-point entries of two state dicts with equal keys.
inline double max_abs_diff(const nn::StateDict& a, const nn::StateDict& b) {
  double worst = 0;
  for (const auto& [name, t] : a) {
    if (!t.is_floating_point()) continue;
    std::vector<double> x = t.to_vector<double>(), y = b[name].to_vector<double>();
    for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::abs(x[i] - y[i]));
  }
  return worst;
}

// Bitwise comparison of this rank's floating tensors with rank 0's: one broadcast, on the
// group's device.
inline bool same_as_rank0(ProcessGroup& group, const std::vector<Tensor>& tensors) {
  std::vector<Tensor> flat;
  for (const Tensor& t : tensors) {
    if (t.is_floating_point()) flat.push_back(native::reshape(native::to(t, group.device(), kFloat32), {t.numel()}));
  }
  Tensor mine = native::cat(flat, 0);
  Tensor theirs = native::clone(mine);
  group.broadcast(theirs, 0)->wait();
  return native::equal(mine, theirs);
}

}  // namespace brisk::dist::testing
