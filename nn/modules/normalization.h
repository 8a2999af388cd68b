#pragma once
// nn::LayerNorm: normalization over the trailing dims, as torch.nn.LayerNorm.
//
// nn::GroupNorm: normalization over groups of channels, as torch.nn.GroupNorm. The channels
// of each sample are split into num_groups groups; each group is normalized with its own
// mean and (biased) variance over its channels and positions, then each channel gets its
// weight and bias. Independent of the batch: the same in training and eval.
//
//   nn::GroupNorm norm(8, 64);  // 8 groups of 8 channels
//   Tensor y = norm(x);         // x [N, 64, *]
#include <cstdint>
#include <iosfwd>

#include "nn/module.h"
#include "nn/module_holder.h"
#include "tensor/arg.h"

namespace brisk::nn {

struct LayerNormOptions {
  LayerNormOptions(Shape normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}
  BRISK_ARG(Shape, normalized_shape);
  BRISK_ARG(double, eps) = 1e-5;
  // Learnable weight (ones) and bias (zeros) of the normalized shape.
  BRISK_ARG(bool, elementwise_affine) = true;
  BRISK_ARG(bool, bias) = true;
};

class LayerNormImpl : public Module {
 public:
  explicit LayerNormImpl(const LayerNormOptions& options);

  Tensor forward(const Tensor& input) override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  LayerNormOptions options;
  Tensor weight;  // normalized_shape, undefined without elementwise_affine
  Tensor bias;    // normalized_shape, undefined without elementwise_affine or bias
};

BRISK_MODULE(LayerNorm);

struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels) : num_groups_(num_groups), num_channels_(num_channels) {}
  BRISK_ARG(int64_t, num_groups);
  BRISK_ARG(int64_t, num_channels);
  BRISK_ARG(double, eps) = 1e-5;
  // Learnable per-channel weight (ones) and bias (zeros).
  BRISK_ARG(bool, affine) = true;
};

class GroupNormImpl : public Module {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels) : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  explicit GroupNormImpl(const GroupNormOptions& options);

  Tensor forward(const Tensor& input) override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  GroupNormOptions options;
  Tensor weight;  // [num_channels], undefined without affine
  Tensor bias;    // [num_channels], undefined without affine
};

BRISK_MODULE(GroupNorm);

}  // namespace brisk::nn
