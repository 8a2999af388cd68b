#include "nn/modules/dropout.h"

#include <ostream>

#include "nn/functional.h"

namespace brisk::nn {

namespace {

void check_probability(const char* layer, double p) {
  BRISK_CHECK(p >= 0.0 && p <= 1.0, "{}: probability has to be between 0 and 1, but got {}", layer, p);
}

}  // namespace

DropoutImpl::DropoutImpl(const DropoutOptions& options_) : options(options_) {
  check_probability("Dropout", options.p());
}

Tensor DropoutImpl::forward(const Tensor& input) {
  return functional::dropout(input, options.p(), is_training(), options.generator());
}

void DropoutImpl::pretty_print(std::ostream& stream) const { stream << "Dropout(p=" << options.p() << ")"; }

Dropout2dImpl::Dropout2dImpl(const Dropout2dOptions& options_) : options(options_) {
  check_probability("Dropout2d", options.p());
}

Tensor Dropout2dImpl::forward(const Tensor& input) {
  return functional::dropout2d(input, options.p(), is_training(), options.generator());
}

void Dropout2dImpl::pretty_print(std::ostream& stream) const { stream << "Dropout2d(p=" << options.p() << ")"; }

}  // namespace brisk::nn
