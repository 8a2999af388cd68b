#pragma once
// nn::Dropout: zeroes elements with probability p in training mode and scales the rest by
// 1 / (1 - p); the identity in eval mode. nn::Dropout2d zeroes whole channels of [N, C, H, W]
// inputs instead (nn::functional::dropout2d). Both draw from the given Generator, or the
// default one.
#include <iosfwd>
#include <string>

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
using Dropout2dOptions = DropoutOptions;

// Channels: false for Dropout (each element), true for Dropout2d (whole channels).
template <bool Channels>
class DropoutNdImpl : public Module {
 public:
  explicit DropoutNdImpl(const DropoutOptions& options = {});
  explicit DropoutNdImpl(double p) : DropoutNdImpl(DropoutOptions(p)) {}

  std::string name() const override { return Channels ? "Dropout2d" : "Dropout"; }
  Tensor forward(const Tensor& input) override;
  void pretty_print(std::ostream& stream) const override;

  DropoutOptions options;
};

extern template class DropoutNdImpl<false>;
extern template class DropoutNdImpl<true>;
using DropoutImpl = DropoutNdImpl<false>;
using Dropout2dImpl = DropoutNdImpl<true>;
BRISK_MODULE(Dropout);
BRISK_MODULE(Dropout2d);

}  // namespace brisk::nn
