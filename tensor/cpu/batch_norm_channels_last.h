#pragma once
// CpuBackend's batch norm kernels over channels_last tensors [N, C, H, W] with strides
// (H*W*C, 1, W*C, C) (tensor/cpu/batch_norm_channels_last.cc), with the parameters and the
// contract of Backend::batch_norm and batch_norm_backward (tensor/backend.h).
#include "tensor/fused_activation.h"
#include "tensor/tensor.h"

namespace brisk::cpu {

void batch_norm_channels_last(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd,
                              const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                              const Tensor& running_var, bool training, double momentum, double eps,
                              FusedActivation activation);

void batch_norm_backward_channels_last(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                                       const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                       const Tensor& bias, const Tensor& out, const Tensor& save_mean,
                                       const Tensor& save_invstd, bool training, FusedActivation activation);

}  // namespace brisk::cpu
