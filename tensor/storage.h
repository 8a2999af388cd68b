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

  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

 private:
  DataPtr data_;
  size_t nbytes_;
  Device device_;
  std::atomic<uint32_t> version_{0};
};

}  // namespace brisk
