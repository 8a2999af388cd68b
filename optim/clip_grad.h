#pragma once
// Gradient clipping, as torch.nn.utils.clip_grad_norm_ / clip_grad_value_. Call between
// backward() and the optimizer's step(); parameters without a gradient are skipped.
#include <vector>

#include "tensor/tensor.h"

namespace brisk::optim {

// Scales all gradients together so that their total norm is at most max_norm and returns
// that total norm from before clipping: the norm_type-norm (2, 1, inf, any p > 0) of the
// per-gradient norms, a 0-dim tensor on the first gradient's device (no host sync). As
// PyTorch, every gradient is multiplied by min(1, max_norm / (total_norm + 1e-6)). With no
// gradients at all it returns 0. With error_if_nonfinite, a NaN or infinite total norm
// throws instead (this reads the norm on the host).
Tensor clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);

// Clamps every gradient element into [-clip_value, clip_value].
void clip_grad_value_(const std::vector<Tensor>& params, double clip_value);

}  // namespace brisk::optim

// libtorch's spelling, torch::nn::utils::clip_grad_norm_: the same clipping, the total norm
// returned as a double (which reads it on the host).
namespace brisk::nn::utils {

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
using optim::clip_grad_value_;

}  // namespace brisk::nn::utils
