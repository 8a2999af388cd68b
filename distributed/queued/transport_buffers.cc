#include "distributed/queued/transport_buffers.h"

#include "cuda/device.h"
#include "tensor/native/ops.h"
#include "tensor/sim/sim_memory.h"

namespace brisk::dist {

TransportBuffers::TransportBuffers(Device device, TransportMode mode) : device_(device), mode_(mode) {
  // The producers of the operation's tensors were queued on the caller's current stream.
  await_device_work();
}

Tensor TransportBuffers::input(const Tensor& t) {
  if (in_place()) return t;
  Tensor host = native::empty_pinned(t.sizes(), t.dtype(), t.device());
  native::copy_(host, t);
  return host;
}

Tensor TransportBuffers::output(const Tensor& t, bool with_values) {
  if (in_place()) return t;
  Tensor host = with_values ? input(t) : native::empty_pinned(t.sizes(), t.dtype(), t.device());
  outputs_.emplace_back(t, host);
  return host;
}

void* TransportBuffers::address(const Tensor& t) {
  void* data = t.raw_data();  // null for an empty tensor
  return data != nullptr && t.device().is_sim() ? sim::to_host_pointer(data) : data;
}

void TransportBuffers::await_device_work() const {
  if (mode_ == TransportMode::kDirect && device_.is_cuda()) cuda::synchronize_current_stream(device_.index);
}

void TransportBuffers::copy_back() {
  for (auto& [device_tensor, host] : outputs_) native::copy_(device_tensor, host);
  await_device_work();
}

}  // namespace brisk::dist
