#pragma once
// Ids for streams that are never reused. CUDA hands the handle of a destroyed stream to the
// next stream created; the caching allocators key their per-stream pools by these ids instead,
// so a new stream never inherits blocks that an old stream's work may still touch.
//
// Free of CUDA headers (handles are cuda/device_memory_api.h's), so it is tested without a GPU.
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "cuda/device_memory_api.h"

namespace brisk::cuda {

class StreamRegistry {
 public:
  // The legacy default stream (handle nullptr) is never destroyed and always has this id.
  static constexpr uint64_t kDefaultStreamId = 0;

  // A stream was just created with `handle`: it gets an id no stream had before, whatever an
  // earlier stream with the same handle had.
  StreamRef created(StreamHandle handle);
  // The stream's id. A handle never seen before (a stream made outside Brisk, or CUDA's
  // per-thread default stream) gets a new id that it keeps until retire().
  StreamRef ref(StreamHandle handle);
  // The stream is being destroyed: returns its id and forgets the handle, so a later stream
  // with the same handle gets a new id.
  StreamRef retire(StreamHandle handle);

 private:
  uint64_t assign(StreamHandle handle);

  std::mutex mutex_;
  std::unordered_map<StreamHandle, uint64_t> ids_;
  uint64_t next_id_ = kDefaultStreamId + 1;
};

// The process-wide registry (never destroyed: streams may die during static destruction).
StreamRegistry& stream_registry();

}  // namespace brisk::cuda
