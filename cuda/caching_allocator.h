#pragma once
// The caching allocator for the memory of one CUDA device, in the spirit of PyTorch's
// CUDACachingAllocator. cudaMalloc and cudaFree are slow and cudaFree synchronizes the
// device, so freed blocks are kept and handed out again:
//   - sizes are rounded up to multiples of 512 bytes;
//   - requests up to 1 MiB come from the small pool, carved out of 2 MiB segments; larger
//     ones from the large pool, carved out of 20 MiB segments below 10 MiB, else from a
//     segment of the size rounded up to 2 MiB;
//   - a cached block larger than the request is split (small pool: when at least 512 bytes
//     are left; large pool: when more than 1 MiB is left), and a freed block merges with the
//     free neighbours of its segment;
//   - a block belongs to the stream it was allocated on. Reusing it on that stream needs no
//     synchronization, since stream order runs the new work after the old; on another
//     stream it could be overwritten while still being read, so each stream has its own
//     free blocks, keyed by the stream's id (StreamRef), never by its handle, which CUDA
//     reuses for the next stream created after a stream is destroyed;
//   - a block that was also used on other streams (record_stream) becomes free only once
//     events recorded on those streams when it was freed have completed;
//   - a stream about to be destroyed is retired (retire_stream): for each block it used, an
//     event is recorded on it while it still exists, and the block's free waits for that
//     event instead, so no event is ever recorded on a dead stream and nobody has to wait for
//     the stream's work at destruction; the blocks it owned are handed out to no other
//     stream (they may still be in use by its last work; they go back to the device when
//     empty_cache() or an out-of-memory retry releases free segments, after synchronizing).
// When the device is out of memory, the allocator waits for pending frees, returns every
// fully free segment to the device and retries once; then it raises a brisk::Error naming
// the request, the device's free and total memory and Brisk's own usage.
//
// Thread-safe. Written against DeviceMemoryApi so the logic runs without a GPU in tests.
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>

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
  // Waits for pending frees, then returns all fully free segments to the device.
  void empty_cache();
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
  struct PendingFree {
    EventHandle event;
    Block* block;
  };

  Pool& pool_of(const Block* block);
  Block* take_cached_block(Pool& pool, uint64_t stream_id, size_t size);
  Block* new_segment(size_t size, size_t requested, uint64_t stream_id, bool small);
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
  std::unordered_map<void*, Block*> allocated_;
  std::list<PendingFree> pending_;
  MemoryStats stats_;
};

}  // namespace brisk::cuda
