// The allocator of CUDA tensors: one DeviceCachingAllocator per device, registered with the
// tensor library at static-initialization time (//cuda is alwayslink), plus cuda/memory.h and
// cuda/graph_pools.h.
#include <memory>
#include <vector>

#include "cuda/caching_allocator.h"
#include "cuda/cuda_memory_api.h"
#include "cuda/device.h"
#include "cuda/error.h"
#include "cuda/graph_pools.h"
#include "cuda/memory.h"
#include "cuda/stream.h"
#include "cuda/stream_registry.h"
#include "tensor/allocator.h"

namespace brisk::cuda {
namespace {

// Made on first use, after check_device() has confirmed a usable GPU. Never destroyed:
// tensors freed during static destruction still return their memory here.
const std::vector<DeviceCachingAllocator*>& device_allocators() {
  static const auto* allocators = [] {
    auto* all = new std::vector<DeviceCachingAllocator*>;
    for (int d = 0; d < device_count(); ++d) {
      all->push_back(new DeviceCachingAllocator(d, make_device_memory_api(d)));
    }
    return all;
  }();
  return *allocators;
}

// Raises the "no driver / no GPU / no such device" error when `device` cannot be used.
DeviceCachingAllocator& allocator_of(int device) {
  check_device(device);
  return *device_allocators()[device];
}

class CudaAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes, Device device) override {
    DeviceCachingAllocator* allocator = &allocator_of(device.index);
    void* ptr = allocator->malloc(nbytes, stream_registry().ref(current_stream(device.index)));
    // A deleter must not throw (std::terminate): a failed free is reported, and the memory
    // stays allocated rather than being reused while a stream may still use it.
    return DataPtr(ptr,
                   [allocator](void* p) { run_reporting_failure("freeing CUDA memory", [&] { allocator->free(p); }); });
  }
  MemoryStats memory_stats(Device device) override { return allocator_of(device.index).stats(); }
  void reset_peak_memory_stats(Device device) override { allocator_of(device.index).reset_peak_stats(); }
};

[[maybe_unused]] const bool registered = [] {
  static CudaAllocator allocator;
  register_allocator(DeviceType::CUDA, &allocator);
  return true;
}();

}  // namespace

MemoryStats memory_stats(int device) { return allocator_of(device).stats(); }

MemoryStats memory_stats() { return memory_stats(current_device()); }

void empty_cache() {
  if (!is_available()) return;
  for (DeviceCachingAllocator* allocator : device_allocators()) allocator->empty_cache();
}

void reset_peak_memory_stats(int device) { allocator_of(device).reset_peak_stats(); }

void reset_peak_memory_stats() { reset_peak_memory_stats(current_device()); }

void record_stream(const Tensor& tensor, cudaStream_t stream) {
  BRISK_CHECK(tensor.defined() && tensor.is_cuda(), "record_stream: expected a CUDA tensor, got {}",
              tensor.defined() ? tensor.describe() : std::string("an undefined tensor"));
  void* data = tensor.storage()->data();
  if (data != nullptr) allocator_of(tensor.device().index).record_stream(data, stream_registry().ref(stream));
}

void begin_allocate_to_pool(int device, uint64_t pool, cudaStream_t stream) {
  allocator_of(device).begin_allocate_to_pool(pool, stream_registry().ref(stream));
}

void end_allocate_to_pool(int device, uint64_t pool) { allocator_of(device).end_allocate_to_pool(pool); }

void release_pool(int device, uint64_t pool) { allocator_of(device).release_pool(pool); }

void retire_stream(cudaStream_t stream) noexcept {
  if (stream == nullptr) return;  // the legacy default stream is never destroyed
  StreamRef retired = stream_registry().retire(stream);
  run_reporting_failure("retiring a CUDA stream before destroying it", [&] {
    if (!is_available()) return;
    for (DeviceCachingAllocator* allocator : device_allocators()) allocator->retire_stream(retired);
  });
}

}  // namespace brisk::cuda
