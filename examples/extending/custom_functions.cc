#include "examples/extending/custom_functions.h"

#include "autograd/ops.h"

namespace brisk::examples {

Tensor SwishFunction::forward(autograd::AutogradContext* ctx, const Tensor& x) {
  ctx->save_for_backward({x});
  return x * sigmoid(x);
}

autograd::TensorList SwishFunction::backward(autograd::AutogradContext* ctx, autograd::TensorList grad_outputs) {
  Tensor x = ctx->get_saved_variables()[0];
  Tensor s = sigmoid(x);
  // d/dx [x * s(x)] = s + x * s * (1 - s)
  return {grad_outputs[0] * (s * (x * (1 - s) + 1))};
}

Tensor GradientReversalFunction::forward(autograd::AutogradContext* ctx, const Tensor& x, double lambda) {
  ctx->saved_data["lambda"] = lambda;
  // A fresh tensor: returning x itself would make the output an alias of the input.
  return x.clone();
}

autograd::TensorList GradientReversalFunction::backward(autograd::AutogradContext* ctx,
                                                        autograd::TensorList grad_outputs) {
  // One gradient per forward argument: x, then none for the number lambda.
  return {grad_outputs[0] * -ctx->saved_data["lambda"].toDouble(), Tensor()};
}

}  // namespace brisk::examples
