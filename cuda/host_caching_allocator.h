#pragma once
// The cache behind pinned (page-locked) host memory. cudaHostAlloc is slow and pins pages
// for the whole system, so freed blocks are kept and handed out again. Sizes are rounded up
// to powers of two (at least 512 bytes) and a block is reused for any request of its size.
//
// An asynchronous copy may still be reading or writing a block when the tensor that owned it
// is freed: the copy registers itself with record_event(), and the block is reused only
// after that event has completed.
//
// Thread-safe. Written against DeviceMemoryApi (malloc = cudaHostAlloc, free = cudaFreeHost)
// so the logic runs without a GPU in tests.
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "cuda/device_memory_api.h"
#include "tensor/memory_stats.h"

namespace brisk::cuda {

// The size class of a request: the next power of two, at least 512 bytes.
size_t host_block_size(size_t nbytes);

class HostCachingAllocator {
 public:
  explicit HostCachingAllocator(std::unique_ptr<DeviceMemoryApi> api);
  // Frees every block, even ones still in use (tests; the process-wide one is never destroyed).
  ~HostCachingAllocator();
  HostCachingAllocator(const HostCachingAllocator&) = delete;
  HostCachingAllocator& operator=(const HostCachingAllocator&) = delete;

  // nullptr for 0 bytes.
  void* malloc(size_t nbytes);
  // `ptr` must come from malloc(); nullptr is ignored.
  void free(void* ptr);
  // Work just queued on `stream` uses the block that contains `ptr` (any address inside it):
  // the block is not reused before that work completes. Returns false, recording nothing,
  // when `ptr` is not in memory from this allocator.
  bool record_event(const void* ptr, StreamHandle stream);
  // True when `ptr` lies inside a block handed out by this allocator.
  bool contains(const void* ptr) const;
  // Waits for pending copies, then frees all cached blocks.
  void empty_cache();
  MemoryStats stats() const;
  void reset_peak_stats();

 private:
  struct Block {
    size_t size;
    void* ptr;
    bool allocated = false;
    std::vector<EventHandle> events;  // of copies that used it; queried when it is freed
  };

  Block* find_block(const void* ptr) const;
  void* allocate_new(size_t size, size_t requested);
  // Destroys completed events of `block`; true when none is left.
  bool drop_completed_events(Block* block);
  void process_pending();
  void release_cached();

  std::unique_ptr<DeviceMemoryApi> api_;
  mutable std::mutex mutex_;
  std::map<const void*, std::unique_ptr<Block>> blocks_;  // all blocks, by address
  std::unordered_map<size_t, std::vector<Block*>> free_;  // reusable, by size
  std::vector<Block*> pending_;                           // freed, waiting for events
  MemoryStats stats_;
};

}  // namespace brisk::cuda
