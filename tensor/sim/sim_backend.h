#pragma once
// The kernels of the simulated device. Each op first checks that every defined tensor it was
// given lives on one simulated device (the error names the op and both devices), then runs
// the CPU kernel on host aliases of the operands (sim_memory.h). Results therefore equal the
// CPU's bit for bit; what the device adds is the placement contract a GPU has: host code
// cannot read its memory, and ops refuse operands from another device.
//
// copy() is the one op that crosses devices: host <-> sim:N and sim:M <-> sim:N.
#include "tensor/backend.h"

namespace brisk::sim {

// Transfers the simulated devices have run since the start or reset_copy_counts(),
// process-wide (copies within one device are kernels, not transfers, and are not counted). A
// device-to-host copy is what a host synchronization is on a GPU (item(), to_vector(),
// .to(kCPU)), so a test can count the synchronizations of a training step.
struct CopyCounts {
  uint64_t device_to_host = 0;
  uint64_t host_to_device = 0;
  uint64_t device_to_device = 0;  // between two sim devices
};
CopyCounts copy_counts();
void reset_copy_counts();

// Forwards each kernel to `host`'s (the CPU backend's, not backend_for(kCPU)'s: while a
// profiler records, the op is recorded once, by the wrapper around this backend). The kernel
// forwards are generated from Backend's list (tensor/backend.h); copy, the one method that
// crosses devices, is written by hand.
class SimBackend final : public Backend {
 public:
  explicit SimBackend(Backend& host) : host_(host) {}

  BRISK_BACKEND_COPY(BRISK_BACKEND_OVERRIDE)
  BRISK_BACKEND_KERNELS(BRISK_BACKEND_OVERRIDE)
  bool has_batch_norm() const override { return true; }

 private:
  Backend& host_;
};

}  // namespace brisk::sim
