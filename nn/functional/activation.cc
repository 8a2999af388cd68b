// The activations: thin names over the differentiable ops of autograd/ops.h.
#include "autograd/ops.h"
#include "nn/functional.h"

namespace brisk::nn::functional {

Tensor relu(const Tensor& x) { return brisk::relu(x); }
Tensor gelu(const Tensor& x, const std::string& approximate) { return brisk::gelu(x, approximate); }
Tensor silu(const Tensor& x) { return brisk::silu(x); }
Tensor leaky_relu(const Tensor& x, double negative_slope) { return brisk::leaky_relu(x, negative_slope); }
Tensor elu(const Tensor& x, double alpha) { return brisk::elu(x, alpha); }
Tensor softplus(const Tensor& x, double beta, double threshold) { return brisk::softplus(x, beta, threshold); }
Tensor hardswish(const Tensor& x) { return brisk::hardswish(x); }
Tensor tanh(const Tensor& x) { return brisk::tanh(x); }
Tensor sigmoid(const Tensor& x) { return brisk::sigmoid(x); }
Tensor softmax(const Tensor& x, int64_t dim) { return brisk::softmax(x, dim); }
Tensor log_softmax(const Tensor& x, int64_t dim) { return brisk::log_softmax(x, dim); }

}  // namespace brisk::nn::functional
