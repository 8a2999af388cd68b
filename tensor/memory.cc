#include "tensor/memory.h"

#include "tensor/allocator.h"

namespace brisk {

MemoryStats memory_stats(Device device) { return allocator_for(device)->memory_stats(device); }

size_t memory_allocated(Device device) { return memory_stats(device).allocated_bytes; }

size_t max_memory_allocated(Device device) { return memory_stats(device).peak_allocated_bytes; }

size_t memory_reserved(Device device) { return memory_stats(device).reserved_bytes; }

size_t max_memory_reserved(Device device) { return memory_stats(device).peak_reserved_bytes; }

void reset_peak_memory_stats(Device device) { allocator_for(device)->reset_peak_memory_stats(device); }

}  // namespace brisk
