#include "tests/checkpoint/dtype_samples.h"

#include <cstring>
#include <limits>
#include <vector>

#include "autograd/ops.h"

namespace brisk::testing {

nn::StateDict dtype_samples() {
  const float inf = std::numeric_limits<float>::infinity();
  nn::StateDict out;
  out.insert("f32", tensor<float>({-1.5f, 0.0f, 0.25f, 3.0e38f, 1.0e-38f, -2.0f, inf, -inf}, {2, 4}));
  out.insert("f64", tensor({-0.25, 0.1, 1.0e300, -1.0e-300, 3.141592653589793, 5.0e-324}, {3, 2}, kFloat64));
  out.insert("i64", tensor<int64_t>({-(int64_t{1} << 62), -1, 0, 1, (int64_t{1} << 62) + 7}, {5}));
  out.insert("i32", tensor<int64_t>({std::numeric_limits<int32_t>::min(), -7, 0, std::numeric_limits<int32_t>::max()},
                                    {2, 2}, kInt32));
  out.insert("u8", arange(256, kInt64).to(kUInt8).reshape({16, 16}));
  out.insert("bool", tensor<bool>({true, false, false, true, true}, {5}));
  out.insert("bf16", tensor<float>({-2.0f, -0.5f, 0.0f, 1.0f, 3.0e38f, 1.5f}, {6}, kBFloat16));
  out.insert("f16", tensor<float>({-65504.0f, -0.5f, 0.0f, 1.0f, 65504.0f, 0.125f}, {3, 2}, kFloat16));
  out.insert("scalar", scalar_tensor(42.5));
  out.insert("empty", zeros({0, 3}));
  return out;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.sizes() != b.sizes()) return false;
  // Compared on the host: the tensors may live on a device.
  Tensor ca = a.to(kCPU).contiguous(), cb = b.to(kCPU).contiguous();
  return std::memcmp(ca.raw_data(), cb.raw_data(), ca.nbytes()) == 0;
}

}  // namespace brisk::testing
