#include "nn/modules/activation.h"

#include <ostream>

#include "nn/functional.h"

namespace brisk::nn {

GELUImpl::GELUImpl(std::string approximate_) : approximate(std::move(approximate_)) {
  BRISK_CHECK(approximate == "none" || approximate == "tanh",
              "GELU: approximate must be \"none\" or \"tanh\", got \"{}\"", approximate);
}
Tensor GELUImpl::forward(const Tensor& input) { return functional::gelu(input, approximate); }
void GELUImpl::pretty_print(std::ostream& stream) const { stream << "GELU(approximate=" << approximate << ")"; }

Tensor LeakyReLUImpl::forward(const Tensor& input) { return functional::leaky_relu(input, negative_slope); }
void LeakyReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "LeakyReLU(negative_slope=" << negative_slope << ")";
}

Tensor ELUImpl::forward(const Tensor& input) { return functional::elu(input, alpha); }
void ELUImpl::pretty_print(std::ostream& stream) const { stream << "ELU(alpha=" << alpha << ")"; }

SoftplusImpl::SoftplusImpl(double beta_, double threshold_) : beta(beta_), threshold(threshold_) {
  BRISK_CHECK(beta != 0.0, "Softplus: beta must not be 0");
}
Tensor SoftplusImpl::forward(const Tensor& input) { return functional::softplus(input, beta, threshold); }
void SoftplusImpl::pretty_print(std::ostream& stream) const {
  stream << "Softplus(beta=" << beta << ", threshold=" << threshold << ")";
}

Tensor SoftmaxImpl::forward(const Tensor& input) { return functional::softmax(input, dim); }
void SoftmaxImpl::pretty_print(std::ostream& stream) const { stream << "Softmax(dim=" << dim << ")"; }

Tensor LogSoftmaxImpl::forward(const Tensor& input) { return functional::log_softmax(input, dim); }
void LogSoftmaxImpl::pretty_print(std::ostream& stream) const { stream << "LogSoftmax(dim=" << dim << ")"; }

}  // namespace brisk::nn
