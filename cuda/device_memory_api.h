#pragma once
// The few CUDA calls the caching allocators make, behind an interface, so that their logic
// (rounding, splitting, coalescing, per-stream reuse, deferred frees, statistics, the
// out-of-memory message) is tested on any machine with a fake implementation.
//
// Free of CUDA headers: streams and events are CUDA's own handle types, declared here the
// way cuda_runtime.h declares them (cudaStream_t is CUstream_st*, cudaEvent_t CUevent_st*),
// so real handles pass through unchanged and a fake may use any distinct pointer values.
#include <cstddef>
#include <cstdint>

struct CUstream_st;
struct CUevent_st;

namespace brisk::cuda {

using StreamHandle = CUstream_st*;
using EventHandle = CUevent_st*;

// A stream as the caching allocators see it: `handle` to record events on, and `id`, which no
// other stream of the process ever has (cuda/stream_registry.h). CUDA gives a destroyed
// stream's handle to the next stream created, so anything keyed by the handle would pass one
// stream's memory to the other; ids are never reused.
struct StreamRef {
  StreamHandle handle;
  uint64_t id;
};

class DeviceMemoryApi {
 public:
  virtual ~DeviceMemoryApi() = default;
  // Returns false when the memory is exhausted (the caller may free its cache and retry);
  // raises brisk::Error for any other failure.
  virtual bool malloc(void** ptr, size_t nbytes) = 0;
  virtual void free(void* ptr) = 0;
  // Bytes free and in total on the device, for the out-of-memory message.
  virtual void mem_get_info(size_t* free, size_t* total) = 0;
  // A new event marking the work queued on `stream` so far.
  virtual EventHandle record_event(StreamHandle stream) = 0;
  // True when the event's work has finished.
  virtual bool query_event(EventHandle event) = 0;
  virtual void synchronize_event(EventHandle event) = 0;
  virtual void destroy_event(EventHandle event) = 0;
};

}  // namespace brisk::cuda
