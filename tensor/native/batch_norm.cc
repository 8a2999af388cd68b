// batch_norm and its gradients: operand placement, contiguity and output allocation; the
// arithmetic is the backend's.
#include "tensor/backend.h"
#include "tensor/native/ops.h"

namespace brisk::native {

namespace {

// The dtype of the statistics and affine parameters for an input of `data`: float32 for
// bfloat16/float16 data, else the data's.
DType stats_dtype(DType data) { return is_reduced_float(data) ? kFloat32 : data; }

}  // namespace

bool has_batch_norm_kernel(const Tensor& input, const std::vector<Tensor>& channel_tensors) {
  if (!is_floating_point(input.dtype())) return false;
  for (const Tensor& t : channel_tensors) {
    if (t.defined() && t.dtype() != stats_dtype(input.dtype())) return false;
  }
  return backend_for(input.device()).has_batch_norm();
}

std::array<Tensor, 3> batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                 const Tensor& running_mean, const Tensor& running_var, bool training, double momentum,
                                 double eps) {
  Device device = common_device("batch_norm", {input, weight, bias, running_mean, running_var});
  // The running statistics are updated in place, so they must be contiguous as they are.
  for (const Tensor& t : {running_mean, running_var}) {
    BRISK_CHECK(!t.defined() || t.is_contiguous(), "batch_norm: running statistics {} must be contiguous",
                t.describe());
  }
  auto maybe_contiguous = [](const Tensor& t) { return t.defined() ? contiguous(t) : t; };
  Tensor x = contiguous(input);
  TensorOptions stats = TensorOptions(stats_dtype(x.dtype())).device(device);
  Tensor out = empty(x.sizes(), TensorOptions(x.dtype()).device(device));
  Tensor save_mean = empty({x.size(1)}, stats), save_invstd = empty({x.size(1)}, stats);
  backend_for(device).batch_norm(out, save_mean, save_invstd, x, maybe_contiguous(weight), maybe_contiguous(bias),
                                 running_mean, running_var, training, momentum, eps);
  // The kernels take contiguous tensors; the output keeps a channels_last input's layout, as PyTorch's.
  return {contiguous(out, input.suggest_memory_format()), save_mean, save_invstd};
}

std::array<Tensor, 3> batch_norm_backward(const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                          const Tensor& save_mean, const Tensor& save_invstd, bool training,
                                          std::array<bool, 3> need) {
  Device device = common_device("batch_norm_backward", {grad_out, input, weight, save_mean, save_invstd});
  BRISK_CHECK(grad_out.sizes() == input.sizes(), "batch_norm_backward: gradient {} does not match the input {}",
              grad_out.describe(), input.describe());
  Tensor x = contiguous(input);
  TensorOptions stats = TensorOptions(stats_dtype(x.dtype())).device(device);
  Tensor grad_input = need[0] ? empty(x.sizes(), TensorOptions(x.dtype()).device(device)) : Tensor();
  Tensor grad_weight = need[1] ? empty({x.size(1)}, stats) : Tensor();
  Tensor grad_bias = need[2] ? empty({x.size(1)}, stats) : Tensor();
  if (need[0] || need[1] || need[2]) {
    backend_for(device).batch_norm_backward(
        grad_input, grad_weight, grad_bias, contiguous(to(grad_out, device, x.dtype())), x,
        weight.defined() ? contiguous(weight) : weight, save_mean, save_invstd, training);
  }
  if (need[0]) grad_input = contiguous(grad_input, input.suggest_memory_format());
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace brisk::native
