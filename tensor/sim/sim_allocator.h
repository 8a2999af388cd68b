#pragma once
// The allocator of sim tensors: blocks of the CPU allocator (64-byte aligned, cached), handed
// out as device pointers (sim_memory.h). Registered for DeviceType::Sim by register.cc.
#include "tensor/allocator.h"

namespace brisk::sim {

class SimAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes, Device device) override;
};

}  // namespace brisk::sim
