#pragma once
// Activation layers without parameters, for Sequential: ReLU, GELU, SiLU, LeakyReLU, ELU,
// Softplus, Hardswish, Tanh, Sigmoid, Softmax and LogSoftmax (the last two over a given dim),
// with PyTorch's arguments and defaults. The layers with arguments also take libtorch's
// options objects:
//
//   nn::LeakyReLU act(nn::LeakyReLUOptions().negative_slope(0.2));  // or nn::LeakyReLU(0.2)
#include <cstdint>
#include <iosfwd>
#include <string>

#include "autograd/ops.h"
#include "nn/module.h"
#include "nn/module_holder.h"
#include "tensor/arg.h"

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

struct GELUOptions {
  // "none" (erf) or "tanh".
  BRISK_ARG(std::string, approximate) = "none";
};

class GELUImpl : public Module {
 public:
  // approximate: "none" (erf) or "tanh".
  explicit GELUImpl(std::string approximate = "none");
  explicit GELUImpl(const GELUOptions& options) : GELUImpl(options.approximate()) {}
  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  std::string approximate;
};
BRISK_MODULE(GELU);

struct LeakyReLUOptions {
  BRISK_ARG(double, negative_slope) = 0.01;
};

class LeakyReLUImpl : public Module {
 public:
  explicit LeakyReLUImpl(double negative_slope_ = 0.01) : negative_slope(negative_slope_) {}
  explicit LeakyReLUImpl(const LeakyReLUOptions& options) : LeakyReLUImpl(options.negative_slope()) {}
  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  double negative_slope;
};
BRISK_MODULE(LeakyReLU);

struct ELUOptions {
  BRISK_ARG(double, alpha) = 1.0;
};

class ELUImpl : public Module {
 public:
  explicit ELUImpl(double alpha_ = 1.0) : alpha(alpha_) {}
  explicit ELUImpl(const ELUOptions& options) : ELUImpl(options.alpha()) {}
  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  double alpha;
};
BRISK_MODULE(ELU);

struct SoftplusOptions {
  BRISK_ARG(double, beta) = 1.0;
  BRISK_ARG(double, threshold) = 20.0;
};

class SoftplusImpl : public Module {
 public:
  explicit SoftplusImpl(double beta = 1.0, double threshold = 20.0);
  explicit SoftplusImpl(const SoftplusOptions& options) : SoftplusImpl(options.beta(), options.threshold()) {}
  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  double beta;
  double threshold;
};
BRISK_MODULE(Softplus);

struct SoftmaxOptions {
  SoftmaxOptions(int64_t dim) : dim_(dim) {}
  BRISK_ARG(int64_t, dim);
};

class SoftmaxImpl : public Module {
 public:
  explicit SoftmaxImpl(int64_t dim_) : dim(dim_) {}
  explicit SoftmaxImpl(const SoftmaxOptions& options) : SoftmaxImpl(options.dim()) {}
  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  int64_t dim;
};
BRISK_MODULE(Softmax);

struct LogSoftmaxOptions {
  LogSoftmaxOptions(int64_t dim) : dim_(dim) {}
  BRISK_ARG(int64_t, dim);
};

class LogSoftmaxImpl : public Module {
 public:
  explicit LogSoftmaxImpl(int64_t dim_) : dim(dim_) {}
  explicit LogSoftmaxImpl(const LogSoftmaxOptions& options) : LogSoftmaxImpl(options.dim()) {}
  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  int64_t dim;
};
BRISK_MODULE(LogSoftmax);

}  // namespace brisk::nn
