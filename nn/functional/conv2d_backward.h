#pragma once
// The gradients of conv2d as a differentiable op, for the ops whose backward (or forward) is
// a conv2d gradient: conv2d itself and conv_transpose2d. Internal to nn::functional.
#include <array>

#include "tensor/tensor.h"
#include "tensor/window_params.h"

namespace brisk::nn::functional {

// {grad_input, grad_weight, grad_bias} of conv2d(input, weight) where `need` asks (the others
// undefined), recorded as an op of (grad_out, input, weight) whose own backward is written
// with conv2d and this function again, so any order of derivatives works. grad_input only
// reads input's shape.
std::array<Tensor, 3> conv2d_backward(const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                      const Conv2dParams& p, std::array<bool, 3> need);

}  // namespace brisk::nn::functional
