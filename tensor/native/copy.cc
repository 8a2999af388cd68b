// Copies and conversions: copy_, contiguous, clone, to.
#include "tensor/backend.h"
#include "tensor/native/ops.h"

namespace brisk::native {
namespace {

// [first, last] byte range a tensor's elements span in its storage.
std::pair<int64_t, int64_t> byte_span(const Tensor& t) {
  int64_t last = t.offset();
  for (int64_t d = 0; d < t.dim(); ++d) last += (t.sizes()[d] - 1) * t.strides()[d];
  auto elem = static_cast<int64_t>(t.element_size());
  return {t.offset() * elem, (last + 1) * elem - 1};
}

bool same_layout(const Tensor& a, const Tensor& b) {
  return a.offset() == b.offset() && a.sizes() == b.sizes() && a.strides() == b.strides() && a.dtype() == b.dtype();
}

bool overlaps(const Tensor& a, const Tensor& b) {
  if (a.storage() != b.storage() || a.numel() == 0 || b.numel() == 0) return false;
  auto [a0, a1] = byte_span(a);
  auto [b0, b1] = byte_span(b);
  return a0 <= b1 && b0 <= a1;
}

}  // namespace

Tensor& copy_(Tensor& dst, const Tensor& src, bool non_blocking) {
  BRISK_CHECK(dst.defined() && src.defined(), "copy_: undefined {}", dst.defined() ? "source" : "destination");
  BRISK_CHECK(broadcast_shapes(dst.sizes(), src.sizes(), "copy_") == dst.sizes(),
              "copy_: source of shape {} cannot be broadcast to the destination shape {}", src.sizes(), dst.sizes());
  for (int64_t d = 0; d < dst.dim(); ++d) {
    BRISK_CHECK(dst.strides()[d] != 0 || dst.sizes()[d] <= 1,
                "copy_: the destination {} has several elements at one memory location (stride 0 in dim {})",
                dst.describe(), d);
  }
  Tensor s = expand(src, dst.sizes());
  if (overlaps(dst, s)) {
    if (same_layout(dst, s)) return dst;
    s = clone(s);
  }
  Device device = dst.is_cuda() ? dst.device() : s.device();
  backend_for(device).copy(dst, s, non_blocking);
  return dst;
}

Tensor clone(const Tensor& t) {
  Tensor out = empty(t.sizes(), TensorOptions(t.dtype()).device(t.device()));
  return copy_(out, t);
}

Tensor contiguous(const Tensor& t) { return t.is_contiguous() ? t : clone(t); }

Tensor to(const Tensor& t, Device device, DType dtype, bool non_blocking) {
  if (t.device() == device && t.dtype() == dtype) return t;
  Tensor out = empty(t.sizes(), TensorOptions(dtype).device(device));
  return copy_(out, t, non_blocking);
}

}  // namespace brisk::native
