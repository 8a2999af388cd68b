#pragma once
// Activation layers without parameters, for Sequential: ReLU, GELU, SiLU, LeakyReLU, ELU,
// Softplus, Hardswish, Tanh, Sigmoid, Softmax and LogSoftmax (the last two over a given dim),
// with PyTorch's arguments and defaults.
#include <cstdint>
#include <iosfwd>
#include <string>

#include "nn/module.h"
#include "nn/module_holder.h"

namespace brisk::nn {

class ReLUImpl : public Module {
 public:
  Tensor forward(const Tensor& input) override;
};
BRISK_MODULE(ReLU);

class GELUImpl : public Module {
 public:
  // approximate: "none" (erf) or "tanh".
  explicit GELUImpl(std::string approximate = "none");
  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  std::string approximate;
};
BRISK_MODULE(GELU);

class SiLUImpl : public Module {
 public:
  Tensor forward(const Tensor& input) override;
};
BRISK_MODULE(SiLU);

class LeakyReLUImpl : public Module {
 public:
  explicit LeakyReLUImpl(double negative_slope = 0.01) : negative_slope(negative_slope) {}
  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  double negative_slope;
};
BRISK_MODULE(LeakyReLU);

class ELUImpl : public Module {
 public:
  explicit ELUImpl(double alpha = 1.0) : alpha(alpha) {}
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

class HardswishImpl : public Module {
 public:
  Tensor forward(const Tensor& input) override;
};
BRISK_MODULE(Hardswish);

class TanhImpl : public Module {
 public:
  Tensor forward(const Tensor& input) override;
};
BRISK_MODULE(Tanh);

class SigmoidImpl : public Module {
 public:
  Tensor forward(const Tensor& input) override;
};
BRISK_MODULE(Sigmoid);

class SoftmaxImpl : public Module {
 public:
  explicit SoftmaxImpl(int64_t dim) : dim(dim) {}
  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  int64_t dim;
};
BRISK_MODULE(Softmax);

class LogSoftmaxImpl : public Module {
 public:
  explicit LogSoftmaxImpl(int64_t dim) : dim(dim) {}
  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  int64_t dim;
};
BRISK_MODULE(LogSoftmax);

}  // namespace brisk::nn
