// CudaBackend::copy: every combination of devices (host <-> CUDA, CUDA <-> CUDA) and dtypes.
//
// Dtype conversion and strides are handled by a kernel on one device; what crosses between
// devices is always one contiguous block of bytes in one cudaMemcpyAsync, staged through a
// contiguous temporary on the side that needs it:
//   host -> device: the host converts/gathers src into dst's dtype, one transfer, then a
//                   device kernel scatters into a strided dst;
//   device -> host: a device kernel converts/gathers into dst's dtype, one transfer, then the
//                   CPU scatters into a strided dst;
//   device -> other device: convert on the source device, transfer, scatter on the target.
#include "cuda/copy.h"
#include "cuda/cuda_backend.h"
#include "cuda/loops.cu.h"
#include "tensor/dispatch.h"
#include "tensor/functors/cast.h"
#include "tensor/native/ops.h"

namespace brisk::cuda {
namespace {

template <typename To, typename From>
struct Convert {
  __device__ To operator()(From x) const { return cast<To>(x); }
};

bool same_layout_dense(const Tensor& dst, const Tensor& src) {
  return dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous();
}

// dst = src on one device, with conversion.
void device_copy(const Tensor& dst, const Tensor& src) {
  if (same_layout_dense(dst, src)) {
    if (dst.raw_data() == src.raw_data()) return;
    LaunchScope scope(dst.device());
    copy_bytes(dst.raw_data(), src.raw_data(), dst.nbytes(), cudaMemcpyDeviceToDevice, scope.stream(), true);
    return;
  }
  dispatch_all(dst.dtype(), "copy_", [&](auto to_tag) {
    using To = typename decltype(to_tag)::type;
    dispatch_all(src.dtype(), "copy_", [&](auto from_tag) {
      using From = typename decltype(from_tag)::type;
      gpu_kernel(dst, Convert<To, From>{}, src);
    });
  });
}

// `t` as a contiguous tensor of `dtype` on its own device (t itself when it already is one).
Tensor dense(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype && t.is_contiguous()) return t;
  Tensor out = native::empty(t.sizes(), TensorOptions(dtype).device(t.device()));
  if (t.is_cuda()) {
    device_copy(out, t);
  } else {
    native::copy_(out, t);
  }
  return out;
}

// A contiguous tensor like `t` to receive a transfer meant for t: t itself when it is one.
Tensor landing(const Tensor& t) {
  return t.is_contiguous() ? t : native::empty(t.sizes(), TensorOptions(t.dtype()).device(t.device()));
}

// copy_bytes (cuda/copy.h) returns early only for a non-blocking copy of pinned memory; a
// host temporary made here is pageable, so the copy has finished with it on return.
void host_to_device(const Tensor& dst, const Tensor& src, bool non_blocking) {
  Tensor host = dense(src, dst.dtype());
  Tensor device = landing(dst);
  LaunchScope scope(dst.device());
  copy_bytes(device.raw_data(), host.raw_data(), host.nbytes(), cudaMemcpyHostToDevice, scope.stream(), non_blocking);
  if (!device.is_same(dst)) device_copy(dst, device);
}

void device_to_host(const Tensor& dst, const Tensor& src, bool non_blocking) {
  Tensor device = dense(src, dst.dtype());
  Tensor host = landing(dst);
  LaunchScope scope(src.device());
  // The CPU reads a host temporary right away, so that copy must have finished.
  copy_bytes(host.raw_data(), device.raw_data(), host.nbytes(), cudaMemcpyDeviceToHost, scope.stream(),
             non_blocking && host.is_same(dst));
  if (!host.is_same(dst)) {
    Tensor target = dst;
    native::copy_(target, host);
  }
}

// The transfer runs on the target's current stream, ordered against the source's current
// stream both ways by events, without a host synchronization: the target stream first waits
// for the source stream's work so far (which produced `from`); then the source stream waits
// for the transfer, so nothing it runs later (writes to src, or new tensors that the caching
// allocator places in the memory of `from` once it is freed, in the source stream's order)
// touches that memory while the transfer still reads it.
void device_to_device(const Tensor& dst, const Tensor& src, bool non_blocking) {
  Tensor from = dense(src, dst.dtype());
  Tensor to = landing(dst);
  int source = src.device().index, target = dst.device().index;
  cudaStream_t source_stream = current_stream(source);
  LaunchScope scope(dst.device());
  wait_stream(scope.stream(), target, source_stream, source);
  BRISK_CUDA_CHECK(cudaMemcpyPeerAsync(to.raw_data(), target, from.raw_data(), source, from.nbytes(), scope.stream()));
  wait_stream(source_stream, source, scope.stream(), target);
  if (!to.is_same(dst)) device_copy(dst, to);
  if (!non_blocking) BRISK_CUDA_CHECK(cudaStreamSynchronize(scope.stream()));
}

}  // namespace

void CudaBackend::copy(const Tensor& dst, const Tensor& src, bool non_blocking) {
  BRISK_CHECK(dst.sizes() == src.sizes(), "copy_: destination {} and source {} differ in shape", dst.describe(),
              src.describe());
  BRISK_CHECK(dst.is_cuda() || src.is_cuda(), "copy_: the CUDA backend got two host tensors, {} and {}", dst.describe(),
              src.describe());
  if (dst.numel() == 0) return;
  if (dst.is_cuda() && src.is_cuda()) {
    if (dst.device() == src.device()) return device_copy(dst, src);
    return device_to_device(dst, src, non_blocking);
  }
  if (dst.is_cuda()) return host_to_device(dst, src, non_blocking);
  device_to_host(dst, src, non_blocking);
}

}  // namespace brisk::cuda
