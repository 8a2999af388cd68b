// batch_norm and its gradients: operand placement, layout and output allocation; the
// arithmetic is the backend's.
#include "tensor/backend.h"
#include "tensor/native/ops.h"

namespace brisk::native {

namespace {

// The dtype of the statistics and affine parameters for an input of `data`: float32 for
// bfloat16/float16 data, else the data's.
DType stats_dtype(DType data) { return is_reduced_float(data) ? kFloat32 : data; }

// Whether t is 4-D channels_last and not also contiguous (a [N, C, 1, 1] tensor is both: the
// kernels then read it as contiguous).
bool is_channels_last(const Tensor& t) {
  return t.dim() == 4 && !t.is_contiguous() && t.is_contiguous(MemoryFormat::ChannelsLast);
}

// A new tensor of `sizes` on `device` with dtype `dtype`, in the layout the kernels use for
// the input (`channels_last` or contiguous).
Tensor empty_in_layout(const Shape& sizes, DType dtype, Device device, bool channels_last) {
  return empty(sizes, TensorOptions(dtype).device(device).memory_format(channels_last ? MemoryFormat::ChannelsLast
                                                                                        : MemoryFormat::Contiguous));
}

// t on `device` in `dtype`, laid out as the kernels read it: as it is when it already is,
// else copied.
Tensor in_layout(const Tensor& t, Device device, DType dtype, bool channels_last) {
  if (!channels_last) return contiguous(to(t, device, dtype));
  if (is_channels_last(t) && t.device() == device && t.dtype() == dtype) return t;
  Tensor laid_out = empty_in_layout(t.sizes(), dtype, device, true);
  return copy_(laid_out, t);
}

Tensor maybe_contiguous(const Tensor& t) { return t.defined() ? contiguous(t) : t; }

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
                                 double eps, FusedActivation activation, const Tensor& num_batches_tracked) {
  Device device = common_device("batch_norm", {input, weight, bias, running_mean, running_var});
  // The running statistics are updated in place, so they must be contiguous as they are.
  for (const Tensor& t : {running_mean, running_var}) {
    BRISK_CHECK(!t.defined() || t.is_contiguous(), "batch_norm: running statistics {} must be contiguous",
                t.describe());
  }
  const Tensor& counter = num_batches_tracked;
  BRISK_CHECK(!counter.defined() || (counter.dtype() == kInt64 && counter.dim() == 0 && counter.device() == device),
              "batch_norm: num_batches_tracked {} must be an int64 scalar on the input's device {}", counter.describe(),
              device);
  const bool channels_last = is_channels_last(input);
  Tensor x = channels_last ? input : contiguous(input);
  TensorOptions stats = TensorOptions(stats_dtype(x.dtype())).device(device);
  Tensor out = empty_in_layout(x.sizes(), x.dtype(), device, channels_last);
  Tensor save_mean = empty({x.size(1)}, stats), save_invstd = empty({x.size(1)}, stats);
  backend_for(device).batch_norm(out, save_mean, save_invstd, x, maybe_contiguous(weight), maybe_contiguous(bias),
                                 running_mean, running_var, num_batches_tracked, training, momentum, eps, activation);
  return {out, save_mean, save_invstd};
}

std::array<Tensor, 3> batch_norm_backward(const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                          const Tensor& bias, const Tensor& out, const Tensor& save_mean,
                                          const Tensor& save_invstd, bool training, FusedActivation activation,
                                          std::array<bool, 3> need) {
  Device device = common_device("batch_norm_backward", {grad_out, input, weight, bias, out, save_mean, save_invstd});
  BRISK_CHECK(grad_out.sizes() == input.sizes(), "batch_norm_backward: gradient {} does not match the input {}",
              grad_out.describe(), input.describe());
  BRISK_CHECK(activation != FusedActivation::Relu || (out.defined() && out.sizes() == input.sizes()),
              "batch_norm_backward: the relu's gradient needs batch_norm's output {} of the input's shape {}",
              out.describe(), input.sizes());
  const bool channels_last = is_channels_last(input);
  Tensor x = channels_last ? input : contiguous(input);
  TensorOptions stats = TensorOptions(stats_dtype(x.dtype())).device(device);
  Tensor grad_input = need[0] ? empty_in_layout(x.sizes(), x.dtype(), device, channels_last) : Tensor();
  Tensor grad_weight = need[1] ? empty({x.size(1)}, stats) : Tensor();
  Tensor grad_bias = need[2] ? empty({x.size(1)}, stats) : Tensor();
  if (need[0] || need[1] || need[2]) {
    Tensor read_out = activation == FusedActivation::Relu ? in_layout(out, device, x.dtype(), channels_last) : Tensor();
    backend_for(device).batch_norm_backward(
        grad_input, grad_weight, grad_bias, in_layout(grad_out, device, x.dtype(), channels_last), x,
        maybe_contiguous(weight), maybe_contiguous(bias), read_out, save_mean, save_invstd, training, activation);
  }
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace brisk::native
