// The differentiable conv2d. Its backward is itself a recorded op whose own backward is
// written with conv2d and conv2d_backward, so second derivatives (create_graph) work:
// grad_input and grad_weight are bilinear in (grad_out, weight) and (grad_out, input), and
// each adjoint is a forward convolution or one of those two gradients again.
#include <array>
#include <vector>

#include "autograd/autocast.h"
#include "autograd/ops.h"
#include "autograd/record.h"
#include "nn/functional.h"
#include "nn/functional/conv2d_backward.h"
#include "tensor/native/ops.h"

namespace brisk::nn::functional {

using autograd::BackwardArgs;
using autograd::record;
using autograd::TensorList;

std::array<Tensor, 3> conv2d_backward(const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                      const Conv2dParams& p, std::array<bool, 3> need) {
  std::array<Tensor, 3> grads = native::conv2d_backward(grad_out, input, weight, p, need);
  // Only the computed gradients become outputs of the node; `slots` maps them back.
  TensorList outputs;
  std::vector<int> slots;
  for (int i = 0; i < 3; ++i) {
    if (need[i]) {
      outputs.push_back(grads[i]);
      slots.push_back(i);
    }
  }
  outputs = record("Conv2dBackwardBackward", outputs, {grad_out, input, weight}, {grad_out, input, weight},
                   [p, slots](const BackwardArgs& a) -> TensorList {
                     std::array<Tensor, 3> gg;  // by slot: grad_input, grad_weight, grad_bias
                     for (size_t i = 0; i < slots.size(); ++i) gg[slots[i]] = a.grads[i];
                     const Tensor &grad_out = a.saved[0], &input = a.saved[1], &weight = a.saved[2];
                     Tensor d_grad_out, d_input, d_weight;
                     if (a.needs_grad[0]) {
                       if (gg[0].defined() || gg[2].defined()) {
                         Tensor gg_input = gg[0].defined() ? gg[0] : zeros_like(input);
                         d_grad_out = conv2d(gg_input, weight, gg[2], p.stride, p.padding, p.dilation, p.groups);
                       }
                       if (gg[1].defined()) {
                         Tensor term = conv2d(input, gg[1], Tensor(), p.stride, p.padding, p.dilation, p.groups);
                         d_grad_out = d_grad_out.defined() ? d_grad_out + term : term;
                       }
                     }
                     if (a.needs_grad[1] && gg[1].defined()) {
                       d_input = conv2d_backward(grad_out, input, gg[1], p, {true, false, false})[0];
                     }
                     if (a.needs_grad[2] && gg[0].defined()) {
                       d_weight = conv2d_backward(grad_out, gg[0], weight, p, {false, true, false})[1];
                     }
                     return {d_grad_out, d_input, d_weight};
                   });
  for (size_t i = 0; i < slots.size(); ++i) grads[slots[i]] = outputs[i];
  return grads;
}

Tensor conv2d(const Tensor& input_in, const Tensor& weight_in, const Tensor& bias_in, Size2 stride, Size2 padding,
              Size2 dilation, int64_t groups) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::conv2d, input_in, weight_in, bias_in);
  const Tensor &input = autocast_inputs[0], &weight = autocast_inputs[1], &bias = autocast_inputs[2];
  Conv2dParams p{stride, padding, dilation, groups};
  Tensor out = native::conv2d(input, weight, bias, p);
  return record("Conv2dBackward", out, {input, weight, bias}, {input, weight}, [p](const BackwardArgs& a) {
    std::array<Tensor, 3> grads =
        conv2d_backward(a.grad(), a.saved[0], a.saved[1], p, {a.needs_grad[0], a.needs_grad[1], a.needs_grad[2]});
    return TensorList{grads[0], grads[1], grads[2]};
  });
}

}  // namespace brisk::nn::functional
