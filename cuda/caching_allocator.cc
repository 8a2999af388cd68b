#include "cuda/caching_allocator.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "tensor/error.h"

namespace brisk::cuda {

// A piece of a segment. The blocks of one segment form a doubly linked list in address
// order; a segment that is one free block (no neighbours) can go back to the device.
struct DeviceCachingAllocator::Block {
  size_t size;
  void* ptr;
  uint64_t stream_id;  // of the stream it was allocated on
  bool small;
  PrivatePool* private_pool = nullptr;  // the graph pool of its segment; null: the general pools
  bool allocated = false;
  Block* prev = nullptr;
  Block* next = nullptr;
  // Streams other than its own that used the block (record_stream).
  std::vector<StreamRef> stream_uses;
  // Events recorded on such streams when they were retired; its free waits for them too.
  std::vector<EventHandle> retired_uses;
  // Events still to complete before a freed block can be reused.
  int pending_events = 0;

  Block(size_t size, void* ptr, uint64_t stream_id, bool small)
      : size(size), ptr(ptr), stream_id(stream_id), small(small) {}
};

bool DeviceCachingAllocator::BlockLess::operator()(const Block* a, const Block* b) const {
  if (a->stream_id != b->stream_id) return a->stream_id < b->stream_id;
  if (a->size != b->size) return a->size < b->size;
  return std::less<void*>()(a->ptr, b->ptr);
}

size_t round_block_size(size_t nbytes) {
  if (nbytes < kMinBlockSize) return kMinBlockSize;
  return (nbytes + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
}

size_t segment_size(size_t rounded) {
  if (rounded <= kSmallSize) return kSmallBuffer;
  if (rounded < kMinLargeAlloc) return kLargeBuffer;
  return (rounded + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
}

DeviceCachingAllocator::DeviceCachingAllocator(int device, std::unique_ptr<DeviceMemoryApi> api)
    : device_(device), api_(std::move(api)) {}

DeviceCachingAllocator::~DeviceCachingAllocator() {
  std::set<Block*> blocks(small_pool_.begin(), small_pool_.end());
  blocks.insert(large_pool_.begin(), large_pool_.end());
  for (const auto& [id, pool] : private_pools_) {
    blocks.insert(pool->small.begin(), pool->small.end());
    blocks.insert(pool->large.begin(), pool->large.end());
  }
  for (const auto& [ptr, block] : allocated_) {
    for (EventHandle event : block->retired_uses) api_->destroy_event(event);
    blocks.insert(block);
  }
  for (const PendingFree& p : pending_) {
    api_->destroy_event(p.event);
    blocks.insert(p.block);  // a block waiting for several events is listed once per event
  }
  for (Block* block : blocks) {
    if (block->prev == nullptr) api_->free(block->ptr);
  }
  for (Block* block : blocks) delete block;
}

void* DeviceCachingAllocator::malloc(size_t nbytes, StreamRef stream) {
  if (nbytes == 0) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  if (captures_.empty()) process_events();
  size_t size = round_block_size(nbytes);
  bool small = size <= kSmallSize;
  PrivatePool* private_pool = capture_pool_of(stream.id);
  Pool& pool = private_pool == nullptr ? (small ? small_pool_ : large_pool_)
                                       : (small ? private_pool->small : private_pool->large);
  Block* block = take_cached_block(pool, stream.id, size);
  if (block == nullptr) block = new_segment(size, nbytes, stream.id, small, private_pool);
  split(block, size);
  block->allocated = true;
  allocated_[block->ptr] = block;
  stats_.count_allocation(block->size);
  return block->ptr;
}

void DeviceCachingAllocator::free(void* ptr) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = allocated_.find(ptr);
  BRISK_CHECK(it != allocated_.end(), "CUDA caching allocator: free of {} on cuda:{}, which it did not allocate", ptr,
              device_);
  Block* block = it->second;
  // Events first: if recording one fails, the block stays allocated rather than being
  // reused while that stream may still use it.
  std::vector<PendingFree> events;
  try {
    for (const StreamRef& stream : block->stream_uses) events.push_back({api_->record_event(stream.handle), block});
  } catch (...) {
    for (const PendingFree& p : events) api_->destroy_event(p.event);
    throw;
  }
  for (EventHandle event : block->retired_uses) events.push_back({event, block});
  allocated_.erase(it);
  stats_.count_free(block->size);
  block->stream_uses.clear();
  block->retired_uses.clear();
  if (events.empty()) {
    free_block(block);
    return;
  }
  block->pending_events += static_cast<int>(events.size());
  pending_.insert(pending_.end(), events.begin(), events.end());
}

void DeviceCachingAllocator::record_stream(void* ptr, StreamRef stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = allocated_.find(ptr);
  BRISK_CHECK(it != allocated_.end(),
              "record_stream: {} on cuda:{} was not allocated by Brisk's CUDA caching allocator (or was freed)", ptr,
              device_);
  Block* block = it->second;
  if (stream.id == block->stream_id) return;
  auto& uses = block->stream_uses;
  if (std::none_of(uses.begin(), uses.end(), [&](const StreamRef& s) { return s.id == stream.id; })) {
    uses.push_back(stream);
  }
}

void DeviceCachingAllocator::retire_stream(StreamRef stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [ptr, block] : allocated_) {
    auto& uses = block->stream_uses;
    auto use = std::find_if(uses.begin(), uses.end(), [&](const StreamRef& s) { return s.id == stream.id; });
    if (use == uses.end()) continue;
    block->retired_uses.push_back(api_->record_event(stream.handle));
    uses.erase(use);
  }
}

void DeviceCachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  BRISK_CHECK(captures_.empty(),
              "empty_cache on cuda:{} during graph capture: device memory cannot be freed while a stream is captured",
              device_);
  synchronize_and_free_events();
  release_cached_segments();
}

void DeviceCachingAllocator::begin_allocate_to_pool(uint64_t pool, StreamRef stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  BRISK_CHECK(capture_pool_of(stream.id) == nullptr,
              "begin_allocate_to_pool: stream {} of cuda:{} already allocates to a graph pool", stream.id, device_);
  auto& entry = private_pools_[pool];
  if (entry == nullptr) {
    entry = std::make_unique<PrivatePool>();
  } else {
    ++entry->use_count;
  }
  captures_.push_back({stream.id, pool});
}

void DeviceCachingAllocator::end_allocate_to_pool(uint64_t pool) {
  std::lock_guard<std::mutex> lock(mutex_);
  captures_.erase(std::remove_if(captures_.begin(), captures_.end(), [&](const Capture& c) { return c.pool == pool; }),
                  captures_.end());
  if (captures_.empty()) release_dead_pools();
}

// The free segments of pools no graph uses any more, which a capture kept from the device.
void DeviceCachingAllocator::release_dead_pools() {
  for (auto it = private_pools_.begin(); it != private_pools_.end();) {
    PrivatePool& p = *it->second;
    if (p.use_count > 0) {
      ++it;
      continue;
    }
    release_free_segments(p.small);
    release_free_segments(p.large);
    it = p.segments == 0 ? private_pools_.erase(it) : std::next(it);
  }
}

void DeviceCachingAllocator::release_pool(uint64_t pool) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = private_pools_.find(pool);
  BRISK_CHECK(it != private_pools_.end() && it->second->use_count > 0,
              "release_pool: graph memory pool {} of cuda:{} has no user left to release it", pool, device_);
  if (--it->second->use_count > 0 || !captures_.empty()) return;  // during a capture: at its end
  release_dead_pools();
}

size_t DeviceCachingAllocator::pool_reserved_bytes(uint64_t pool) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = private_pools_.find(pool);
  return it == private_pools_.end() ? 0 : it->second->reserved;
}

MemoryStats DeviceCachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void DeviceCachingAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.reset_peaks();
}

DeviceCachingAllocator::Pool& DeviceCachingAllocator::pool_of(const Block* block) {
  if (block->private_pool != nullptr) return block->small ? block->private_pool->small : block->private_pool->large;
  return block->small ? small_pool_ : large_pool_;
}

DeviceCachingAllocator::PrivatePool* DeviceCachingAllocator::capture_pool_of(uint64_t stream_id) {
  for (const Capture& c : captures_) {
    if (c.stream_id == stream_id) return private_pools_.at(c.pool).get();
  }
  return nullptr;
}

DeviceCachingAllocator::Block* DeviceCachingAllocator::take_cached_block(Pool& pool, uint64_t stream_id, size_t size) {
  Block key(size, nullptr, stream_id, false);
  auto it = pool.lower_bound(&key);
  if (it == pool.end() || (*it)->stream_id != stream_id) return nullptr;
  Block* block = *it;
  pool.erase(it);
  return block;
}

DeviceCachingAllocator::Block* DeviceCachingAllocator::new_segment(size_t size, size_t requested, uint64_t stream_id,
                                                                   bool small, PrivatePool* private_pool) {
  size_t bytes = segment_size(size);
  void* ptr = nullptr;
  if (!api_->malloc(&ptr, bytes)) {
    // During a capture nothing may be waited for or freed: no retry.
    if (!captures_.empty()) raise_out_of_memory(requested, bytes);
    synchronize_and_free_events();
    release_cached_segments();
    if (!api_->malloc(&ptr, bytes)) raise_out_of_memory(requested, bytes);
  }
  stats_.count_device_malloc(bytes);
  auto* block = new Block(bytes, ptr, stream_id, small);
  block->private_pool = private_pool;
  if (private_pool != nullptr) {
    ++private_pool->segments;
    private_pool->reserved += bytes;
  }
  return block;
}

// `block` is a whole free segment, out of its pool: back to the device.
void DeviceCachingAllocator::release_segment(Block* block) {
  api_->free(block->ptr);
  stats_.count_device_free(block->size);
  if (PrivatePool* p = block->private_pool) {
    --p->segments;
    p->reserved -= block->size;
  }
  delete block;
}

void DeviceCachingAllocator::release_free_segments(Pool& pool) {
  for (auto it = pool.begin(); it != pool.end();) {
    Block* block = *it;
    if (block->prev != nullptr || block->next != nullptr) {
      ++it;
      continue;
    }
    it = pool.erase(it);
    release_segment(block);
  }
}

void DeviceCachingAllocator::split(Block* block, size_t size) {
  size_t remaining = block->size - size;
  bool worth_it = block->small ? remaining >= kMinBlockSize : remaining > kSmallSize;
  if (!worth_it) return;
  Block* rest = new Block(remaining, static_cast<char*>(block->ptr) + size, block->stream_id, block->small);
  rest->private_pool = block->private_pool;
  rest->prev = block;
  rest->next = block->next;
  if (rest->next != nullptr) rest->next->prev = rest;
  block->next = rest;
  block->size = size;
  pool_of(rest).insert(rest);
}

void DeviceCachingAllocator::free_block(Block* block) {
  block->allocated = false;
  Pool& pool = pool_of(block);
  merge(block, block->prev, pool);
  merge(block, block->next, pool);
  PrivatePool* p = block->private_pool;
  if (p == nullptr || p->use_count > 0 || !captures_.empty() || block->prev != nullptr || block->next != nullptr) {
    pool.insert(block);
    return;
  }
  // The last piece of a released pool's segment (outside captures: cudaFree is not allowed then).
  release_segment(block);
  if (p->segments == 0) {
    for (auto it = private_pools_.begin(); it != private_pools_.end(); ++it) {
      if (it->second.get() == p) {
        private_pools_.erase(it);
        break;
      }
    }
  }
}

// Absorbs `neighbour` into `block` if it is free and cached (in `pool`).
void DeviceCachingAllocator::merge(Block* block, Block* neighbour, Pool& pool) {
  if (neighbour == nullptr || neighbour->allocated || neighbour->pending_events > 0) return;
  if (neighbour == block->prev) {
    block->ptr = neighbour->ptr;
    block->prev = neighbour->prev;
    if (block->prev != nullptr) block->prev->next = block;
  } else {
    block->next = neighbour->next;
    if (block->next != nullptr) block->next->prev = block;
  }
  block->size += neighbour->size;
  pool.erase(neighbour);
  delete neighbour;
}

void DeviceCachingAllocator::process_events() {
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (!api_->query_event(it->event)) {
      ++it;
      continue;
    }
    api_->destroy_event(it->event);
    Block* block = it->block;
    it = pending_.erase(it);
    if (--block->pending_events == 0) free_block(block);
  }
}

void DeviceCachingAllocator::synchronize_and_free_events() {
  for (const PendingFree& p : pending_) {
    api_->synchronize_event(p.event);
    api_->destroy_event(p.event);
    if (--p.block->pending_events == 0) free_block(p.block);
  }
  pending_.clear();
}

void DeviceCachingAllocator::release_cached_segments() {
  release_free_segments(small_pool_);
  release_free_segments(large_pool_);
}

void DeviceCachingAllocator::raise_out_of_memory(size_t requested, size_t segment) {
  ++stats_.num_ooms;
  size_t free = 0, total = 0;
  api_->mem_get_info(&free, &total);
  BRISK_FAIL(
      "CUDA out of memory on cuda:{}: tried to allocate {} (a new {} segment). The device has {} free of {} total; "
      "Brisk has {} allocated to tensors (peak {}) and {} reserved by its caching allocator ({} of that reserved but "
      "unused, in pieces of partly used segments). {}",
      device_, format_bytes(requested), format_bytes(segment), format_bytes(free), format_bytes(total),
      format_bytes(stats_.allocated_bytes), format_bytes(stats_.peak_allocated_bytes),
      format_bytes(stats_.reserved_bytes), format_bytes(stats_.reserved_bytes - stats_.allocated_bytes),
      out_of_memory_advice());
}

}  // namespace brisk::cuda
