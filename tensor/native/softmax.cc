// softmax / log_softmax and their backward along any dim (the kernels see contiguous data).
#include "tensor/backend.h"
#include "tensor/native/ops.h"

namespace brisk::native {

Tensor softmax(const Tensor& x, int64_t dim, bool log) {
  const char* name = log ? "log_softmax" : "softmax";
  BRISK_CHECK(is_floating_point(x.dtype()), "{}: expected a floating point input, got {}", name, x.describe());
  int64_t d = wrap_dim(dim, x.dim(), name);
  Tensor in = contiguous(x);
  Tensor out = empty(in.sizes(), in.options());
  backend_for(in.device()).softmax(out, in, d, log);
  return out;
}

Tensor softmax_backward(const Tensor& grad_out, const Tensor& out, int64_t dim, bool log) {
  const char* name = log ? "log_softmax_backward" : "softmax_backward";
  BRISK_CHECK(grad_out.sizes() == out.sizes(), "{}: gradient {} does not match the output {}", name,
              grad_out.describe(), out.describe());
  Device device = common_device(name, {grad_out, out});
  int64_t d = wrap_dim(dim, out.dim(), name);
  Tensor y = contiguous(out);
  Tensor g = contiguous(to(grad_out, device, out.dtype()));
  Tensor grad_in = empty(y.sizes(), TensorOptions(y.dtype()).device(device));
  backend_for(device).softmax_backward(grad_in, g, y, d, log);
  return grad_in;
}

}  // namespace brisk::native
