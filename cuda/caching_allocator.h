#pragma once
// The caching allocator for the memory of one CUDA device, in the spirit of PyTorch's
// CUDACachingAllocator: freed blocks are kept and handed out again, split and merged within
// their segments; a block is reused only on the stream it belongs to, once the streams that
// also used it (record_stream, retire_stream) are done with it. How (pools, splitting, streams,
// out-of-memory retry): docs/gpu.md, "The caching allocator". When the device is out of memory
// even after a retry, raises brisk::Error naming the request, the device's free and total
// memory and Brisk's own usage.
//
// Graph-safe pools (torch.cuda.graphs' private pools): while a graph captures work on a stream
// (begin_allocate_to_pool), that stream's allocations come from the graph's private pool, and
// a block of a private pool, freed during or after the capture, goes back to that pool only:
// a replay writes it, so eager work never gets it while a graph that uses the pool lives.
// Once every graph that captured into the pool has released it (release_pool), its segments
// go back to the device as soon as no tensor refers to them.
//
// Thread-safe. Written against DeviceMemoryApi so the logic runs without a GPU in tests.
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>
#include <vector>

#include "cuda/device_memory_api.h"
#include "tensor/memory_stats.h"

namespace brisk::cuda {

constexpr size_t kMinBlockSize = 512;                // every size is a multiple of this
constexpr size_t kSmallSize = size_t{1} << 20;       // largest request served by the small pool
constexpr size_t kSmallBuffer = size_t{2} << 20;     // segment size of the small pool
constexpr size_t kMinLargeAlloc = size_t{10} << 20;  // from here on, segments are sized to the request
constexpr size_t kLargeBuffer = size_t{20} << 20;    // segment size for large requests below that
constexpr size_t kRoundLarge = size_t{2} << 20;      // granularity of request-sized segments

// Rounds a request up to the allocator's granularity (kMinBlockSize, at least one unit).
size_t round_block_size(size_t nbytes);
// Size of the segment requested from the device when no cached block fits `rounded` bytes.
size_t segment_size(size_t rounded);

class DeviceCachingAllocator {
 public:
  // `device` is only used in messages; `api` makes the device calls.
  DeviceCachingAllocator(int device, std::unique_ptr<DeviceMemoryApi> api);
  // Returns every segment to the device, even ones still in use: destroy only when no
  // tensor refers to this device's memory any more (tests; the process-wide allocators
  // are never destroyed).
  ~DeviceCachingAllocator();
  DeviceCachingAllocator(const DeviceCachingAllocator&) = delete;
  DeviceCachingAllocator& operator=(const DeviceCachingAllocator&) = delete;

  // Memory usable by work on `stream`; nullptr for 0 bytes.
  void* malloc(size_t nbytes, StreamRef stream);
  // `ptr` must come from malloc(); nullptr is ignored. If an event cannot be recorded on a
  // stream that used the block, the error is raised and the block stays allocated (leaked,
  // never handed out while that stream might still use it).
  void free(void* ptr);
  // `ptr`, allocated on another stream, is also used by work queued on `stream`: its free
  // waits for that work.
  void record_stream(void* ptr, StreamRef stream);
  // `stream` is about to be destroyed (it is still valid): blocks it used stop referring to
  // it; their frees wait for an event recorded on it now.
  void retire_stream(StreamRef stream);
  // Waits for pending frees, then returns all fully free segments of the general pools to the
  // device. Raises during a capture (freeing device memory is not allowed then).
  void empty_cache();

  // From now on, until end_allocate_to_pool(pool), malloc() on `stream` allocates from the
  // private pool `pool` (a graph memory pool id, tensor/graphs/mempool_id.h), made on first
  // use; each begin adds a user of the pool that release_pool() removes. While any capture is
  // underway the allocator neither queries nor waits for events nor frees device memory
  // (calls a CUDA stream capture forbids).
  void begin_allocate_to_pool(uint64_t pool, StreamRef stream);
  void end_allocate_to_pool(uint64_t pool);
  // A graph that captured into `pool` is gone: when it was the pool's last user, the pool's
  // free segments go back to the device now (or, during a capture, at its end), the others
  // once their blocks are freed.
  void release_pool(uint64_t pool);
  // Bytes the device holds for the private pool `pool` (0 for a pool without segments).
  size_t pool_reserved_bytes(uint64_t pool) const;
  MemoryStats stats() const;
  void reset_peak_stats();

 private:
  struct Block;
  // Orders a pool by (stream id, size, address): lower_bound finds the smallest fitting
  // block of a stream.
  struct BlockLess {
    bool operator()(const Block* a, const Block* b) const;
  };
  using Pool = std::set<Block*, BlockLess>;
  struct PrivatePool {
    int use_count = 1;  // graphs that captured into it and have not released it
    int segments = 0;
    size_t reserved = 0;
    Pool small;
    Pool large;
  };
  struct Capture {
    uint64_t stream_id;
    uint64_t pool;
  };
  struct PendingFree {
    EventHandle event;
    Block* block;
  };

  Pool& pool_of(const Block* block);
  Block* take_cached_block(Pool& pool, uint64_t stream_id, size_t size);
  Block* new_segment(size_t size, size_t requested, uint64_t stream_id, bool small, PrivatePool* private_pool);
  PrivatePool* capture_pool_of(uint64_t stream_id);
  void release_segment(Block* block);
  void release_free_segments(Pool& pool);
  void release_dead_pools();
  void split(Block* block, size_t size);
  void free_block(Block* block);
  void merge(Block* block, Block* neighbour, Pool& pool);
  void process_events();
  void synchronize_and_free_events();
  void release_cached_segments();
  [[noreturn]] void raise_out_of_memory(size_t requested, size_t segment);

  int device_;
  std::unique_ptr<DeviceMemoryApi> api_;
  mutable std::mutex mutex_;
  Pool small_pool_;
  Pool large_pool_;
  std::unordered_map<uint64_t, std::unique_ptr<PrivatePool>> private_pools_;
  std::vector<Capture> captures_;
  std::unordered_map<void*, Block*> allocated_;
  std::list<PendingFree> pending_;
  MemoryStats stats_;
};

}  // namespace brisk::cuda
