#pragma once
// Activation layers without parameters, for Sequential: ReLU, GELU, SiLU, LeakyReLU, ELU,
// Softplus, Hardswish, Tanh, Sigmoid, Softmax and LogSoftmax (the last two over a given dim),
// with PyTorch's arguments and defaults.
#include <cstdint>
#include <iosfwd>
#include <string>

#include "autograd/ops.h"
#include "nn/module.h"
#include "nn/module_holder.h"

namespace brisk::nn {

// The layers of the activations without arguments, each calling the function of its name
// (autograd/ops.h): ReLU calls relu.
#define BRISK_ACTIVATION_MODULE(Name, function)                                       \
  class Name##Impl : public Module {                                                  \
   public:                                                                            \
    Tensor forward(const Tensor& input) override { return ::brisk::function(input); } \
  };                                                                                  \
  BRISK_MODULE(Name)

BRISK_ACTIVATION_MODULE(ReLU, relu);
BRISK_ACTIVATION_MODULE(SiLU, silu);
BRISK_ACTIVATION_MODULE(Hardswish, hardswish);
BRISK_ACTIVATION_MODULE(Tanh, tanh);
BRISK_ACTIVATION_MODULE(Sigmoid, sigmoid);
#undef BRISK_ACTIVATION_MODULE

class GELUImpl : public Module {
 public:
  // approximate: "none" (erf) or "tanh".
  explicit GELUImpl(std::string approximate = "none");
  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  std::string approximate;
};
BRISK_MODULE(GELU);

class LeakyReLUImpl : public Module {
 public:
  explicit LeakyReLUImpl(double negative_slope_ = 0.01) : negative_slope(negative_slope_) {}
  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  double negative_slope;
};
BRISK_MODULE(LeakyReLU);

class ELUImpl : public Module {
 public:
  explicit ELUImpl(double alpha_ = 1.0) : alpha(alpha_) {}
  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  double alpha;
};
BRISK_MODULE(ELU);

class SoftplusImpl : public Module {
 public:
  explicit SoftplusImpl(double beta = 1.0, double threshold = 20.0);
  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  double beta;
  double threshold;
};
BRISK_MODULE(Softplus);

class SoftmaxImpl : public Module {
 public:
  explicit SoftmaxImpl(int64_t dim_) : dim(dim_) {}
  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  int64_t dim;
};
BRISK_MODULE(Softmax);

class LogSoftmaxImpl : public Module {
 public:
  explicit LogSoftmaxImpl(int64_t dim_) : dim(dim_) {}
  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  int64_t dim;
};
BRISK_MODULE(LogSoftmax);

}  // namespace brisk::nn
