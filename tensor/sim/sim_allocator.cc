#include "tensor/sim/sim_allocator.h"

#include "tensor/error.h"
#include "tensor/sim/sim_memory.h"

namespace brisk::sim {

DataPtr SimAllocator::allocate(size_t nbytes, Device device) {
  BRISK_CHECK(device.is_sim(), "SimAllocator: asked for memory on {}", device);
  DataPtr host = cpu_allocator()->allocate(nbytes, kCPU);
  auto free_host = host.get_deleter();
  void* block = to_device_pointer(host.release());
  return DataPtr(block, [free_host = std::move(free_host)](void* p) { free_host(to_host_pointer(p)); });
}

}  // namespace brisk::sim
