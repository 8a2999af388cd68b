#include "nn/modules/dropout.h"

#include <ostream>

#include "nn/functional.h"

namespace brisk::nn {

DropoutImpl::DropoutImpl(const DropoutOptions& options_) : options(options_) {
  BRISK_CHECK(options.p() >= 0.0 && options.p() <= 1.0, "Dropout: probability has to be between 0 and 1, but got {}",
              options.p());
}

Tensor DropoutImpl::forward(const Tensor& input) const {
  return functional::dropout(input, options.p(), is_training(), options.generator());
}

void DropoutImpl::pretty_print(std::ostream& stream) const { stream << "Dropout(p=" << options.p() << ")"; }

}  // namespace brisk::nn
