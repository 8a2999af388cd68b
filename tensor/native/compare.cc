// Whole-tensor comparisons that answer with one bool.
#include <cmath>

#include "tensor/native/ops.h"

namespace brisk::native {

bool equal(const Tensor& a, const Tensor& b) {
  common_device("equal", {a, b});
  if (a.sizes() != b.sizes()) return false;
  if (a.numel() == 0) return true;
  // NaN != NaN, so tensors holding NaN are never equal, as in PyTorch.
  Tensor mismatches = reduce(ReduceOp::Sum, binary(BinaryOp::Ne, a, b), {}, false);
  return mismatches.item<int64_t>() == 0;
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol) {
  BRISK_CHECK(a.dtype() == b.dtype(), "allclose: expected tensors of the same dtype, got {} and {}", a.dtype(),
              b.dtype());
  common_device("allclose", {a, b});
  Shape shape = broadcast_shapes(a.sizes(), b.sizes(), "allclose");
  std::vector<double> x = expand(a, shape).to_vector<double>();
  std::vector<double> y = expand(b, shape).to_vector<double>();
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i] == y[i]) continue;  // also equal infinities
    // An infinite or NaN error is never close (|inf - 1| <= inf would otherwise pass).
    double error = std::fabs(x[i] - y[i]);
    if (!std::isfinite(error) || error > atol + std::fabs(rtol * y[i])) return false;
  }
  return true;
}

}  // namespace brisk::native
