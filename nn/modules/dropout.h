#pragma once
// nn::Dropout: zeroes elements with probability p in training mode and scales the rest by
// 1 / (1 - p); the identity in eval mode. nn::Dropout2d zeroes whole channels of [N, C, H, W]
// inputs instead (nn::functional::dropout2d). Both draw from the given Generator, or the
// default one.
#include <iosfwd>

#include "nn/module.h"
#include "nn/module_holder.h"
#include "tensor/arg.h"
#include "tensor/generator.h"

namespace brisk::nn {

struct DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}
  BRISK_ARG(double, p);
  // Not owned; must outlive the module. Null: the default generator.
  BRISK_ARG(Generator*, generator) = nullptr;
};

class DropoutImpl : public Module {
 public:
  explicit DropoutImpl(const DropoutOptions& options = {});
  explicit DropoutImpl(double p) : DropoutImpl(DropoutOptions(p)) {}

  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  DropoutOptions options;
};

BRISK_MODULE(Dropout);

using Dropout2dOptions = DropoutOptions;

class Dropout2dImpl : public Module {
 public:
  explicit Dropout2dImpl(const Dropout2dOptions& options = {});
  explicit Dropout2dImpl(double p) : Dropout2dImpl(Dropout2dOptions(p)) {}

  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  Dropout2dOptions options;
};

BRISK_MODULE(Dropout2d);

}  // namespace brisk::nn
