#include "tensor/cpu_caching_allocator.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "tensor/error.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BRISK_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define BRISK_ASAN 1
#endif

namespace brisk {
namespace {

constexpr size_t kAlignment = 64;

bool caching_wanted() {
#ifdef BRISK_ASAN
  return false;
#else
  const char* off = std::getenv("BRISK_NO_CACHING_ALLOCATOR");
  return off == nullptr || std::strcmp(off, "") == 0 || std::strcmp(off, "0") == 0;
#endif
}

}  // namespace

CpuCachingAllocator::CpuCachingAllocator(bool caching, size_t max_cached_bytes)
    : caching_(caching), max_cached_bytes_(max_cached_bytes) {}

CpuCachingAllocator::~CpuCachingAllocator() { empty_cache(); }

size_t CpuCachingAllocator::size_class(size_t nbytes) {
  size_t size = std::max(kAlignment, (nbytes + kAlignment - 1) / kAlignment * kAlignment);
  if (size <= 4 * kAlignment) return size;
  // A multiple of a quarter of the largest power of two not above `size`.
  int top = 63 - __builtin_clzll(size);
  size_t step = size_t(1) << (top - 2);
  return (size + step - 1) / step * step;
}

DataPtr CpuCachingAllocator::allocate(size_t nbytes, Device) {
  const size_t size = size_class(nbytes);
  void* ptr = take_cached_block(size);
  if (ptr == nullptr) {
    ptr = std::aligned_alloc(kAlignment, size);
    if (ptr == nullptr) {
      // The cache may hold the memory this request needs.
      empty_cache();
      ptr = std::aligned_alloc(kAlignment, size);
    }
    if (ptr == nullptr) raise_out_of_memory(nbytes, size);
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.count_device_malloc(size);
    stats_.count_allocation(size);
  }
  return DataPtr(ptr, [this, size](void* p) { release(p, size); });
}

void* CpuCachingAllocator::take_cached_block(size_t size) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = free_blocks_.find(size);
  if (it == free_blocks_.end() || it->second.empty()) return nullptr;
  void* ptr = it->second.back();
  it->second.pop_back();
  ++stats_.num_cache_hits;
  stats_.count_allocation(size);
  return ptr;
}

void CpuCachingAllocator::raise_out_of_memory(size_t nbytes, size_t size) {
  CpuMemoryStats stats;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.num_ooms;
    stats = stats_;
  }
  BRISK_FAIL(
      "CPU out of memory: tried to allocate {} (a {} block); the system refused it even after Brisk gave back its "
      "cache. Brisk has {} allocated to CPU tensors (peak {}). {}",
      format_bytes(nbytes), format_bytes(size), format_bytes(stats.allocated_bytes),
      format_bytes(stats.peak_allocated_bytes), out_of_memory_advice());
}

void CpuCachingAllocator::release(void* ptr, size_t size) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.count_free(size);  // the block now counts as cached
    if (caching_ && stats_.cached_bytes() <= max_cached_bytes_) {
      free_blocks_[size].push_back(ptr);
      return;
    }
    stats_.count_device_free(size);
  }
  std::free(ptr);
}

CpuMemoryStats CpuCachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void CpuCachingAllocator::reset_peak() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.reset_peaks();
}

MemoryStats CpuCachingAllocator::memory_stats(Device) { return stats(); }

void CpuCachingAllocator::reset_peak_memory_stats(Device) { reset_peak(); }

void CpuCachingAllocator::empty_cache() {
  std::unordered_map<size_t, std::vector<void*>> blocks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    blocks.swap(free_blocks_);
    stats_.reserved_bytes = stats_.allocated_bytes;
    for (const auto& entry : blocks) stats_.num_device_frees += entry.second.size();
  }
  for (const auto& entry : blocks) {
    for (void* ptr : entry.second) std::free(ptr);
  }
}

namespace {

// Never destroyed: tensors in static storage may free their blocks during exit, after any
// destructor of this allocator would have run.
CpuCachingAllocator& process_allocator() {
  static CpuCachingAllocator* allocator = new CpuCachingAllocator(caching_wanted());
  return *allocator;
}

}  // namespace

Allocator* cpu_allocator() { return &process_allocator(); }
CpuMemoryStats cpu_memory_stats() { return process_allocator().stats(); }
void cpu_empty_cache() { process_allocator().empty_cache(); }

}  // namespace brisk
