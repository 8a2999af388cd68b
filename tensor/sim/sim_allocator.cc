#include "tensor/sim/sim_allocator.h"

#include "tensor/error.h"
#include "tensor/sim/sim_memory.h"

namespace brisk::sim {

DataPtr SimAllocator::allocate(size_t nbytes, Device device) {
  BRISK_CHECK(device.is_sim(), "SimAllocator: asked for memory on {}", device);
  DataPtr host = cpu_allocator()->allocate(nbytes, kCPU);
  auto free_host = host.get_deleter();
  void* block = host.release();
  // The deleter keeps the untagged address: LeakSanitizer, which does not know the tag, still
  // sees the block referenced while the tensor lives.
  return DataPtr(to_device_pointer(block), [free_host = std::move(free_host), block](void*) { free_host(block); });
}

}  // namespace brisk::sim
