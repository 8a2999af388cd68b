#pragma once
// float32 (and, on CPUs with bfloat16 dot products, bfloat16) conv2d and its gradients through
// oneDNN (Debian libdnnl, the library PyTorch runs them with on the CPU): its JIT kernels for
// this CPU's vector width beat im2col + Eigen on the 3x3 convolutions of CIFAR networks. The operands are either all
// contiguous NCHW, and each call reorders them into the blocked layout the kernel asks for and the result back, or
// channels_last (NHWC), which the kernels read and write as they are. Primitives and reorders are made once per
// geometry and thread count and cached; staging buffers and oneDNN's scratchpad come from the CPU caching allocator, so
// a training step allocates nothing new after the first.
#include "tensor/tensor.h"
#include "tensor/window_params.h"

namespace brisk::cpu {

// Whether the oneDNN kernels take a convolution of `input`: float32, or bfloat16 where the
// CPU has native bfloat16 dot products (AVX512-BF16), and not inside a parallel region (Brisk
// never nests them; the im2col path then runs serially).
bool onednn_conv2d_applies(const Tensor& input);

// Whether a convolution runs channels_last (NHWC): when its operands are not all contiguous
// NCHW, the native op made them all channels_last (tensor/backend.h's contract).
bool channels_last_call(const Tensor& input, const Tensor& weight, const Tensor& out);

// The contracts of Backend::conv2d and Backend::conv2d_backward (tensor/backend.h).
void onednn_conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                   const Conv2dParams& params);
void onednn_conv2d_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                            const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                            const Conv2dParams& params);

}  // namespace brisk::cpu
