#pragma once
// Activation layers without parameters, for Sequential: ReLU, GELU, SiLU, Tanh, Sigmoid,
// Softmax and LogSoftmax (the last two over a given dim).
#include <cstdint>
#include <iosfwd>
#include <string>

#include "nn/module.h"
#include "nn/module_holder.h"

namespace brisk::nn {

class ReLUImpl : public Module {
 public:
  Tensor forward(const Tensor& input) const;
};
BRISK_MODULE(ReLU);

class GELUImpl : public Module {
 public:
  // approximate: "none" (erf) or "tanh".
  explicit GELUImpl(std::string approximate = "none");
  Tensor forward(const Tensor& input) const;
  void pretty_print(std::ostream& stream) const override;

  std::string approximate;
};
BRISK_MODULE(GELU);

class SiLUImpl : public Module {
 public:
  Tensor forward(const Tensor& input) const;
};
BRISK_MODULE(SiLU);

class TanhImpl : public Module {
 public:
  Tensor forward(const Tensor& input) const;
};
BRISK_MODULE(Tanh);

class SigmoidImpl : public Module {
 public:
  Tensor forward(const Tensor& input) const;
};
BRISK_MODULE(Sigmoid);

class SoftmaxImpl : public Module {
 public:
  explicit SoftmaxImpl(int64_t dim) : dim(dim) {}
  Tensor forward(const Tensor& input) const;
  void pretty_print(std::ostream& stream) const override;

  int64_t dim;
};
BRISK_MODULE(Softmax);

class LogSoftmaxImpl : public Module {
 public:
  explicit LogSoftmaxImpl(int64_t dim) : dim(dim) {}
  Tensor forward(const Tensor& input) const;
  void pretty_print(std::ostream& stream) const override;

  int64_t dim;
};
BRISK_MODULE(LogSoftmax);

}  // namespace brisk::nn
