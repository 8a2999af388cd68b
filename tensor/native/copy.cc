// Copies and conversions: copy_, contiguous, clone, to.
#include "tensor/backend.h"
#include "tensor/graphs/capture_state.h"
#include "tensor/native/operands.h"

namespace brisk::native {

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
  // The device that is not the host runs the copy: it can read and write both its own
  // memory and the host's. Two devices of different types have no backend that sees both.
  BRISK_CHECK(dst.is_cpu() || s.is_cpu() || dst.device().type == s.device().type,
              "copy_: cannot copy directly between {} and {} (source {}, destination {}); copy through the CPU",
              s.device(), dst.device(), s.describe(), dst.describe());
  Device device = dst.is_cpu() ? s.device() : dst.device();
  if (dst.is_cpu() != s.is_cpu()) {
    graphs::check_not_capturing(
        device, dst.is_cpu() ? "copy_ to the host (item(), to_vector(), .to(kCPU))" : "copy_ from the host",
        dst.is_cpu() ? "the host cannot wait for work that is only being recorded; read results after replay()"
                     : "replay would copy the host memory as it was at capture; copy into a device tensor that the "
                       "graph reads before replay() instead");
  }
  backend_for(device).copy(dst, s, non_blocking);
  return dst;
}

Tensor clone(const Tensor& t, MemoryFormat format) {
  Tensor out = empty_like(t, format);
  return copy_(out, t);
}

Tensor contiguous(const Tensor& t, MemoryFormat format) { return t.is_contiguous(format) ? t : clone(t, format); }

Tensor to(const Tensor& t, Device device, DType dtype, bool non_blocking) {
  if (t.device() == device && t.dtype() == dtype) return t;
  Tensor out = empty_like(t, TensorOptions(dtype).device(device));
  return copy_(out, t, non_blocking);
}

}  // namespace brisk::native
