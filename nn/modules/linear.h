#pragma once
// nn::Linear: y = x W^T + b, as torch.nn.Linear.
#include <cstdint>
#include <iosfwd>

#include "nn/module.h"
#include "nn/module_holder.h"
#include "tensor/arg.h"

namespace brisk::nn {

struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features) : in_features_(in_features), out_features_(out_features) {}
  BRISK_ARG(int64_t, in_features);
  BRISK_ARG(int64_t, out_features);
  BRISK_ARG(bool, bias) = true;
};

class LinearImpl : public Module {
 public:
  LinearImpl(int64_t in_features, int64_t out_features) : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options);

  // input [*, in_features] -> [*, out_features].
  Tensor forward(const Tensor& input) override;
  // PyTorch's initialization: weight ~ kaiming_uniform_(a = sqrt(5)), which is
  // U(-1/sqrt(in_features), 1/sqrt(in_features)), and the bias from the same range.
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  LinearOptions options;
  Tensor weight;  // [out_features, in_features]
  Tensor bias;    // [out_features], undefined without bias
};

BRISK_MODULE(Linear);

}  // namespace brisk::nn
