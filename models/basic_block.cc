#include "models/basic_block.h"

#include <optional>

#include "autograd/ops.h"
#include "nn/functional.h"

namespace brisk::models {

namespace F = nn::functional;

namespace {

nn::Conv2d conv3x3(int64_t in_channels, int64_t out_channels, int64_t stride) {
  return nn::Conv2d(nn::Conv2dOptions(in_channels, out_channels, 3).stride(stride).padding(1).bias(false));
}

// Option A: x[:, :, ::stride, ::stride], then zero channels before and after, as
// F.pad(x[:, :, ::2, ::2], (0, 0, 0, 0, planes // 4, planes // 4)) in the reference: two
// kernels (F::pad's fill and copy), in x's layout.
Tensor zero_pad_shortcut(const Tensor& x, int64_t stride, int64_t out_channels) {
  Tensor sub = x.slice(2, 0, std::nullopt, stride).slice(3, 0, std::nullopt, stride);
  const int64_t added = out_channels - sub.size(1);
  if (added == 0) return sub;
  return F::pad(sub, {0, 0, 0, 0, added / 2, added - added / 2});
}

}  // namespace

BasicBlockImpl::BasicBlockImpl(const BasicBlockOptions& options_) : options(options_) {
  const int64_t in = options.in_channels(), out = options.out_channels(), stride = options.stride();
  BRISK_CHECK(in > 0 && out > 0 && stride > 0,
              "BasicBlock: channels and stride must be positive, got in_channels {}, out_channels {}, stride {}", in,
              out, stride);
  BRISK_CHECK(options.shortcut() != Shortcut::ZeroPad || out >= in,
              "BasicBlock: the zero-padding shortcut cannot reduce channels ({} -> {})", in, out);
  conv1 = register_module("conv1", conv3x3(in, out, stride));
  // bn1's ReLU and the ReLU after the residual sum run fused (one kernel each way).
  bn1 = register_module("bn1", nn::BatchNorm2d(nn::BatchNormOptions(out).activation(FusedActivation::Relu)));
  conv2 = register_module("conv2", conv3x3(out, out, 1));
  bn2 = register_module("bn2", nn::BatchNorm2d(out));
  shortcut = register_module("shortcut", nn::Sequential());
  if (changes_shape() && options.shortcut() == Shortcut::Projection) {
    shortcut->push_back(nn::Conv2d(nn::Conv2dOptions(in, out, 1).stride(stride).bias(false)));
    shortcut->push_back(nn::BatchNorm2d(out));
  }
}

bool BasicBlockImpl::changes_shape() const {
  return options.stride() != 1 || options.in_channels() != options.out_channels();
}

Tensor BasicBlockImpl::forward(const Tensor& x) {
  Tensor out = bn1(conv1(x));
  out = bn2(conv2(out));
  bool zero_pad = changes_shape() && options.shortcut() == Shortcut::ZeroPad;
  Tensor skip = zero_pad ? zero_pad_shortcut(x, options.stride(), options.out_channels()) : shortcut(x);
  return F::add_relu(out, skip);
}

nn::Sequential basic_block_stage(int64_t blocks, int64_t in_channels, int64_t out_channels, int64_t stride,
                                 Shortcut shortcut) {
  BRISK_CHECK(blocks > 0, "basic_block_stage: a stage needs at least one block, got {}", blocks);
  nn::Sequential stage;
  for (int64_t i = 0; i < blocks; ++i) {
    stage->push_back(BasicBlock(BasicBlockOptions(i == 0 ? in_channels : out_channels, out_channels)
                                    .stride(i == 0 ? stride : 1)
                                    .shortcut(shortcut)));
  }
  return stage;
}

}  // namespace brisk::models
