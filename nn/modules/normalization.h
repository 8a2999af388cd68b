#pragma once
// nn::LayerNorm: normalization over the trailing dims, as torch.nn.LayerNorm.
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

}  // namespace brisk::nn
