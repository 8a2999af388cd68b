#include "tensor/sim/sim_memory.h"

#include <cstdint>

namespace brisk::sim {
namespace {

constexpr uintptr_t kDeviceTag = uintptr_t(1) << 55;

}  // namespace

void* to_device_pointer(void* host) {
  auto address = reinterpret_cast<uintptr_t>(host);
  BRISK_CHECK((address & kDeviceTag) == 0, "sim: host address {} already has the device tag bit", host);
  return reinterpret_cast<void*>(address | kDeviceTag);
}

void* to_host_pointer(const void* device) {
  BRISK_CHECK(is_device_pointer(device), "sim: {} is not a device pointer of the simulated device", device);
  return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(device) & ~kDeviceTag);
}

bool is_device_pointer(const void* p) { return (reinterpret_cast<uintptr_t>(p) & kDeviceTag) != 0; }

Tensor host_alias(const Tensor& t) {
  if (!t.defined()) return Tensor();
  BRISK_CHECK(t.device().is_sim(), "sim: host_alias of a tensor that is not on a simulated device: {}", t.describe());
  const std::shared_ptr<Storage>& device_storage = t.storage();
  DataPtr host(to_host_pointer(device_storage->data()), [keep_alive = device_storage](void*) {});
  auto storage = std::make_shared<Storage>(std::move(host), device_storage->nbytes(), kCPU);
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), t.sizes(), t.strides(), t.offset(), t.dtype()));
}

}  // namespace brisk::sim
