#include "tensor/native/operands.h"

#include <cmath>
#include <limits>

#include "tensor/backend.h"
#include "tensor/dispatch.h"
#include "tensor/functors/cast.h"
#include "tensor/iter/output_layout.h"

namespace brisk::native::detail {
namespace {

// PyTorch's ScalarType names, which its casting errors use.
const char* torch_type_name(DType t) {
  switch (t) {
#define BRISK_SCALAR_TYPE_NAME(name, type, printed, scalar_type) \
  case DType::name: return scalar_type;
    BRISK_FORALL_DTYPES(BRISK_SCALAR_TYPE_NAME)
#undef BRISK_SCALAR_TYPE_NAME
  }
  return "?";
}

std::pair<int64_t, int64_t> byte_span(const Tensor& t) {
  int64_t last = t.offset();
  for (int64_t d = 0; d < t.dim(); ++d) last += (t.sizes()[d] - 1) * t.strides()[d];
  auto elem = static_cast<int64_t>(t.element_size());
  return {t.offset() * elem, (last + 1) * elem - 1};
}

template <typename T>
bool fits(Scalar value) {
  using limits = std::numeric_limits<T>;
  if constexpr (std::is_same_v<T, bool>) {
    return true;
  } else if constexpr (std::is_integral_v<T>) {
    // Unsigned types accept negatives down to -max, which wrap (uint8 -1 -> 255), as PyTorch.
    double lo = std::is_signed_v<T> ? static_cast<double>(limits::lowest()) : -static_cast<double>(limits::max());
    if (value.kind() != Scalar::Kind::Float) {
      int64_t v = value.to_int();
      return std::is_same_v<T, int64_t> || (v >= static_cast<int64_t>(lo) && v <= static_cast<int64_t>(limits::max()));
    }
    double v = value.to_double();
    return v >= lo && v <= static_cast<double>(limits::max());
  } else {
    double v = value.to_double();
    double max = std::is_same_v<T, Half>       ? 65504.0
                 : std::is_same_v<T, BFloat16> ? 3.3895313892515355e38
                                               : static_cast<double>(limits::max());
    return !std::isfinite(v) || std::abs(v) <= max;
  }
}

}  // namespace

Tensor operand(const Tensor& t, DType dtype, Device device, const Shape& shape) {
  Tensor converted = to(t, device, dtype);
  return converted.sizes() == shape ? converted : expand(converted, shape);
}

Tensor new_output(const Shape& shape, DType dtype, Device device, const std::vector<Tensor>& inputs) {
  return empty_strided(shape, iter::output_strides(shape, inputs), TensorOptions(dtype).device(device));
}

Tensor scalar_operand(Scalar value, DType dtype, Device device) {
  // On a device, the device's Fill kernel writes the value, which it takes as a double and
  // casts with the same cast<T>: the same element whenever the value is a double, or an
  // integer that is exact as a double and fits T (no wrapping). A copy from the host would
  // synchronize the host with the device on every op with a number (CUDA's pageable copies do).
  bool fill_on_device =
      !device.is_cpu() &&
      (value.kind() != Scalar::Kind::Int ||
       (value.to_int() <= kExactInDouble && value.to_int() >= -kExactInDouble &&
        dispatch_all(dtype, "scalar_operand", [&](auto tag) { return fits<typename decltype(tag)::type>(value); })));
  if (fill_on_device) {
    Tensor t = empty({}, TensorOptions(dtype).device(device));
    backend_for(device).unary(UnaryOp::Fill, t, t, {value.to_double()});
    return t;
  }
  Tensor host = empty({}, dtype);
  dispatch_all(dtype, "scalar_operand", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = host.data_ptr<T>();
    switch (value.kind()) {
      case Scalar::Kind::Float: *p = cast<T>(value.to_double()); break;
      case Scalar::Kind::Int: *p = cast<T>(value.to_int()); break;
      case Scalar::Kind::Bool: *p = cast<T>(value.to_int() != 0); break;
    }
  });
  return device.is_cpu() ? host : to(host, device, dtype);
}

Device inplace_device(const char* op, const Tensor& self, const std::vector<Tensor>& others) {
  std::vector<Tensor> all{self};
  all.insert(all.end(), others.begin(), others.end());
  Device device = common_device(op, all);
  BRISK_CHECK(device == self.device(),
              "{}: expected all tensors to be on the same device, but found at least two devices, {} (the output, "
              "{}) and {}",
              op, self.device(), self.describe(), device);
  return device;
}

bool can_cast(DType from, DType to) {
  if (is_floating_point(from) && is_integral(to, true)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

void check_can_cast(const char* op, DType result, DType self_dtype) {
  BRISK_CHECK(can_cast(result, self_dtype), "{}: result type {} can't be cast to the desired output type {}", op,
              torch_type_name(result), torch_type_name(self_dtype));
}

void check_inplace_output(const char* op, const Tensor& self, const Shape& shape) {
  BRISK_CHECK(self.sizes() == shape, "{}: output with shape {} doesn't match the broadcast shape {}", op, self.sizes(),
              shape);
  for (int64_t d = 0; d < self.dim(); ++d) {
    BRISK_CHECK(self.strides()[d] != 0 || self.sizes()[d] <= 1,
                "{}: unsupported operation: more than one element of the written-to tensor {} refers to a single "
                "memory location (stride 0 in dim {}); clone() it first",
                op, self.describe(), d);
  }
}

void check_fits(const char* op, Scalar value, DType dtype) {
  bool ok = dispatch_all(dtype, op, [&](auto tag) { return fits<typename decltype(tag)::type>(value); });
  BRISK_CHECK(
      ok, "{}: value {} cannot be converted to type {} without overflow", op,
      value.kind() == Scalar::Kind::Float ? fmt::format("{}", value.to_double()) : fmt::format("{}", value.to_int()),
      dtype);
}

bool partially_overlaps(const Tensor& a, const Tensor& b) {
  if (a.storage() != b.storage() || a.numel() == 0 || b.numel() == 0) return false;
  if (a.offset() == b.offset() && a.sizes() == b.sizes() && a.strides() == b.strides()) return false;
  auto [a0, a1] = byte_span(a);
  auto [b0, b1] = byte_span(b);
  return a0 <= b1 && b0 <= a1;
}

}  // namespace brisk::native::detail
