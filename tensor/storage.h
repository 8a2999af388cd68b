#pragma once
// The memory behind one or more tensors. Views share a Storage, and with it the version
// counter that autograd uses to detect in-place changes to tensors saved for backward.
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "tensor/allocator.h"
#include "tensor/device.h"

namespace brisk {

class Storage {
 public:
  Storage(size_t nbytes, Device device);
  // Wraps memory owned elsewhere (e.g. a user buffer); `data` keeps the deleter.
  Storage(DataPtr data, size_t nbytes, Device device);

  void* data() const { return data_.get(); }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }

  // Replaces the memory with a fresh, uninitialized block of `nbytes` from the device's
  // allocator (0 frees it: no block, data() null), keeping this Storage and its version: torch's
  // untyped_storage().resize_(), which fully_shard uses to free a unit's gathered parameters
  // after forward while the tensors saved for backward still refer to them, and to refill them
  // before backward. Tensors over the storage must not be read while it is too small for them.
  void resize(size_t nbytes);

  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

 private:
  DataPtr data_;
  size_t nbytes_;
  Device device_;
  std::atomic<uint32_t> version_{0};
};

}  // namespace brisk
