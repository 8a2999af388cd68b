#pragma once
// nn::Dropout: zeroes elements with probability p in training mode and scales the rest by
// 1 / (1 - p); the identity in eval mode. Draws from the given Generator, or the default one.
#include <iosfwd>

#include "nn/module.h"
#include "nn/module_holder.h"
#include "nn/options.h"
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

  Tensor forward(const Tensor& input) const;
  void pretty_print(std::ostream& stream) const override;

  DropoutOptions options;
};

BRISK_MODULE(Dropout);

}  // namespace brisk::nn
