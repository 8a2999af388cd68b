#include "cuda/cuda_memory_api.h"

#include <cuda_runtime.h>
#include <unistd.h>

#include "cuda/device.h"
#include "cuda/error.h"

namespace brisk::cuda {
namespace {

// The event calls, shared by both implementations. Events are made on the stream's own
// device, which need not be the allocator's (record_stream with another device's stream).
class CudaEvents : public DeviceMemoryApi {
 public:
  EventHandle record_event(StreamHandle stream) override {
    int device = 0;
    BRISK_CUDA_CHECK(cudaStreamGetDevice(stream, &device));
    DeviceGuard guard(device);
    cudaEvent_t event;
    BRISK_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    BRISK_CUDA_CHECK(cudaEventRecord(event, stream));
    return event;
  }

  bool query_event(EventHandle event) override { return BRISK_CUDA_QUERY(cudaEventQuery(event)); }

  void synchronize_event(EventHandle event) override { BRISK_CUDA_CHECK(cudaEventSynchronize(event)); }

  void destroy_event(EventHandle event) override { BRISK_CUDA_CHECK(cudaEventDestroy(event)); }
};

// DeviceMemoryApi::malloc's answer to a cudaMalloc/cudaHostAlloc status: out-of-memory is the
// one failure the caller handles (free the cache, retry), so it returns false; others raise.
bool allocated(cudaError_t status) {
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return false;
  }
  BRISK_CUDA_CHECK(status);
  return true;
}

class DeviceApi final : public CudaEvents {
 public:
  explicit DeviceApi(int device) : device_(device) {}

  // A graph capture's allocations come from its private pool; a new segment for it is made
  // during the capture, which cudaMalloc may be (the capture never frees it, and the pool keeps
  // it while the graph lives) but which thread-local capture would refuse: relaxed for the call.
  bool malloc(void** ptr, size_t nbytes) override {
    DeviceGuard guard(device_);
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    BRISK_CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    cudaError_t status = cudaMalloc(ptr, nbytes);
    BRISK_CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    return allocated(status);
  }

  void free(void* ptr) override {
    DeviceGuard guard(device_);
    BRISK_CUDA_CHECK(cudaFree(ptr));
  }

  void mem_get_info(size_t* free, size_t* total) override {
    DeviceGuard guard(device_);
    BRISK_CUDA_CHECK(cudaMemGetInfo(free, total));
  }

 private:
  int device_;
};

class PinnedApi final : public CudaEvents {
 public:
  bool malloc(void** ptr, size_t nbytes) override {
    return allocated(cudaHostAlloc(ptr, nbytes, cudaHostAllocDefault));
  }

  void free(void* ptr) override { BRISK_CUDA_CHECK(cudaFreeHost(ptr)); }

  void mem_get_info(size_t* free, size_t* total) override {
    size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    *free = static_cast<size_t>(sysconf(_SC_AVPHYS_PAGES)) * page;
    *total = static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) * page;
  }
};

}  // namespace

std::unique_ptr<DeviceMemoryApi> make_device_memory_api(int device) { return std::make_unique<DeviceApi>(device); }

std::unique_ptr<DeviceMemoryApi> make_pinned_memory_api() { return std::make_unique<PinnedApi>(); }

}  // namespace brisk::cuda
