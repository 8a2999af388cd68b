#include "cuda/pinned_allocator.h"

#include <memory>
#include <optional>

#include "cuda/cuda_memory_api.h"
#include "cuda/device.h"
#include "cuda/error.h"
#include "cuda/host_caching_allocator.h"
#include "tensor/native/ops.h"

namespace brisk::cuda {
namespace {

// Never destroyed: tensors freed during static destruction still return their memory here.
HostCachingAllocator& host_cache() {
  static auto* cache = new HostCachingAllocator(make_pinned_memory_api());
  return *cache;
}

class PinnedAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes, Device device) override {
    BRISK_CHECK(device.is_cpu() || device.is_cuda(), "pinned memory is for copies to a CUDA device, but {} was given",
                device);
    BRISK_CHECK(is_available(), "pinned memory needs CUDA, but {}", unavailable_reason());
    // cudaHostAlloc allocates in the current device's context; a thread that never chose a
    // device would create one on GPU 0, on every rank (PyTorch's pin_memory_device).
    std::optional<DeviceGuard> guard;
    if (device.is_cuda()) guard.emplace(device.index);
    // A deleter must not throw (std::terminate): a failed free is reported and the block kept.
    return DataPtr(host_cache().malloc(nbytes),
                   [](void* p) { run_reporting_failure("freeing pinned memory", [&] { host_cache().free(p); }); });
  }
};

// Registered at static initialization of any program that links //cuda:runtime (alwayslink).
[[maybe_unused]] const bool registered = [] {
  register_allocator(DeviceType::CUDA, pinned_allocator(), MemoryKind::kPinnedHost);
  return true;
}();

}  // namespace

Allocator* pinned_allocator() {
  static PinnedAllocator allocator;
  return &allocator;
}

Tensor pin_memory(const Tensor& tensor) {
  BRISK_CHECK(tensor.defined() && tensor.is_cpu(), "pin_memory: only CPU tensors can be pinned, got {}",
              tensor.defined() ? tensor.describe() : std::string("an undefined tensor"));
  if (is_pinned(tensor)) return tensor;
  size_t nbytes = tensor.nbytes();
  auto storage = std::make_shared<Storage>(pinned_allocator()->allocate(nbytes, kCPU), nbytes, kCPU);
  Tensor pinned(
      std::make_shared<TensorImpl>(storage, tensor.sizes(), contiguous_strides(tensor.sizes()), 0, tensor.dtype()));
  native::copy_(pinned, tensor);
  return pinned;
}

bool is_pinned(const Tensor& tensor) { return tensor.defined() && tensor.is_cpu() && is_pinned(tensor.raw_data()); }

bool is_pinned(const void* ptr) {
  if (ptr == nullptr || !is_available()) return false;
  if (host_cache().contains(ptr)) return true;
  cudaPointerAttributes attributes;
  BRISK_CUDA_CHECK(cudaPointerGetAttributes(&attributes, ptr));
  return attributes.type == cudaMemoryTypeHost;
}

bool record_pinned_use(const void* ptr, cudaStream_t stream) { return host_cache().record_event(ptr, stream); }

MemoryStats pinned_memory_stats() { return host_cache().stats(); }

void empty_pinned_cache() {
  if (is_available()) host_cache().empty_cache();
}

}  // namespace brisk::cuda
