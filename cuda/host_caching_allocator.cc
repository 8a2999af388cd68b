#include "cuda/host_caching_allocator.h"

#include <algorithm>

#include "tensor/error.h"

namespace brisk::cuda {

size_t host_block_size(size_t nbytes) {
  size_t size = 512;
  while (size < nbytes) size *= 2;
  return size;
}

HostCachingAllocator::HostCachingAllocator(std::unique_ptr<DeviceMemoryApi> api) : api_(std::move(api)) {}

HostCachingAllocator::~HostCachingAllocator() {
  for (auto& [ptr, block] : blocks_) {
    for (EventHandle event : block->events) api_->destroy_event(event);
    api_->free(block->ptr);
  }
}

void* HostCachingAllocator::malloc(size_t nbytes) {
  if (nbytes == 0) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  process_pending();
  size_t size = host_block_size(nbytes);
  std::vector<Block*>& cached = free_[size];
  Block* block = nullptr;
  if (!cached.empty()) {
    block = cached.back();
    cached.pop_back();
  } else {
    block = find_block(allocate_new(size, nbytes));
  }
  block->allocated = true;
  stats_.count_allocation(block->size);
  return block->ptr;
}

void HostCachingAllocator::free(void* ptr) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = blocks_.find(ptr);
  BRISK_CHECK(it != blocks_.end() && it->second->allocated,
              "pinned memory allocator: free of {}, which it did not allocate (or freed already)", ptr);
  Block* block = it->second.get();
  block->allocated = false;
  stats_.count_free(block->size);
  if (drop_completed_events(block)) {
    free_[block->size].push_back(block);
  } else {
    pending_.push_back(block);
  }
}

bool HostCachingAllocator::record_event(const void* ptr, StreamHandle stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  Block* block = find_block(ptr);
  if (block == nullptr || !block->allocated) return false;
  block->events.push_back(api_->record_event(stream));
  return true;
}

bool HostCachingAllocator::contains(const void* ptr) const {
  std::lock_guard<std::mutex> lock(mutex_);
  Block* block = find_block(ptr);
  return block != nullptr && block->allocated;
}

void HostCachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (Block* block : pending_) {
    for (EventHandle event : block->events) {
      api_->synchronize_event(event);
      api_->destroy_event(event);
    }
    block->events.clear();
    free_[block->size].push_back(block);
  }
  pending_.clear();
  release_cached();
}

MemoryStats HostCachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void HostCachingAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.reset_peaks();
}

HostCachingAllocator::Block* HostCachingAllocator::find_block(const void* ptr) const {
  auto it = blocks_.upper_bound(ptr);
  if (it == blocks_.begin()) return nullptr;
  Block* block = std::prev(it)->second.get();
  const char* begin = static_cast<const char*>(block->ptr);
  const char* p = static_cast<const char*>(ptr);
  return p < begin + block->size ? block : nullptr;
}

void* HostCachingAllocator::allocate_new(size_t size, size_t requested) {
  void* ptr = nullptr;
  if (!api_->malloc(&ptr, size)) {
    for (Block* block : pending_) {
      for (EventHandle event : block->events) api_->synchronize_event(event);
    }
    process_pending();
    release_cached();
    if (!api_->malloc(&ptr, size)) {
      ++stats_.num_ooms;
      size_t free = 0, total = 0;
      api_->mem_get_info(&free, &total);
      BRISK_FAIL(
          "out of pinned host memory: tried to allocate {} (a {} block). The host has {} free of {} total; Brisk "
          "holds {} of pinned memory, {} of it in use. Pin less data at once (e.g. fewer data-loader workers or a "
          "smaller prefetch).",
          format_bytes(requested), format_bytes(size), format_bytes(free), format_bytes(total),
          format_bytes(stats_.reserved_bytes), format_bytes(stats_.allocated_bytes));
    }
  }
  blocks_.emplace(ptr, std::make_unique<Block>(Block{size, ptr}));
  stats_.count_device_malloc(size);
  return ptr;
}

bool HostCachingAllocator::drop_completed_events(Block* block) {
  auto& events = block->events;
  auto done =
      std::stable_partition(events.begin(), events.end(), [&](EventHandle event) { return !api_->query_event(event); });
  for (auto it = done; it != events.end(); ++it) api_->destroy_event(*it);
  events.erase(done, events.end());
  return events.empty();
}

void HostCachingAllocator::process_pending() {
  auto still_pending = std::stable_partition(pending_.begin(), pending_.end(),
                                             [&](Block* block) { return !drop_completed_events(block); });
  for (auto it = still_pending; it != pending_.end(); ++it) free_[(*it)->size].push_back(*it);
  pending_.erase(still_pending, pending_.end());
}

void HostCachingAllocator::release_cached() {
  for (auto& [size, cached] : free_) {
    for (Block* block : cached) {
      api_->free(block->ptr);
      stats_.count_device_free(block->size);
      blocks_.erase(block->ptr);
    }
    cached.clear();
  }
}

}  // namespace brisk::cuda
