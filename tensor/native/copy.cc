// Copies and conversions: copy_, contiguous, clone, to.
#include <atomic>

#include "tensor/backend.h"
#include "tensor/native/operands.h"

namespace brisk::native {
namespace {

std::atomic<int64_t> device_to_host_copies{0};

}  // namespace

int64_t device_to_host_copy_count() { return device_to_host_copies.load(std::memory_order_relaxed); }

Tensor& copy_(Tensor& dst, const Tensor& src, bool non_blocking) {
  BRISK_CHECK(dst.defined() && src.defined(), "copy_: undefined {}", dst.defined() ? "source" : "destination");
  BRISK_CHECK(broadcast_shapes(dst.sizes(), src.sizes(), "copy_") == dst.sizes(),
              "copy_: source of shape {} cannot be broadcast to the destination shape {}", src.sizes(), dst.sizes());
  detail::check_inplace_output("copy_", dst, dst.sizes());
  Tensor s = expand(src, dst.sizes());
  if (dst.storage() == s.storage() && dst.offset() == s.offset() && dst.strides() == s.strides() &&
      dst.dtype() == s.dtype()) {
    return dst;
  }
  if (detail::partially_overlaps(dst, s)) s = clone(s);
  if (dst.is_cpu() && !s.is_cpu()) device_to_host_copies.fetch_add(1, std::memory_order_relaxed);
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
