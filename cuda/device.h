#pragma once
// CUDA devices: how many there are, which one is current, and what this build was made
// with. Free of CUDA headers, so CPU-only code can ask `is_available()`; in a build without
// the CUDA toolkit every function here exists, the queries answer "none", and anything
// that needs a device raises "built without CUDA".
#include <string>

#include "brisk/requires_cxx17.h"

namespace brisk::cuda {

// True when CUDA is compiled in, a driver is loaded and at least one GPU is visible.
bool is_available();
// 0 when unavailable, whatever the reason.
int device_count();
// Why no CUDA device can be used: "built without CUDA", "no CUDA driver found / driver too
// old: <CUDA's message>" or "no CUDA GPU present"; empty when is_available().
std::string unavailable_reason();
int current_device();
// Makes `device` current for this thread (the device that cudaMalloc, kernel launches and
// the default stream refer to).
void set_device(int device);
// Waits until all work on `device`, on every stream, has finished.
void synchronize(int device);
void synchronize();
// Waits until the work queued so far on this thread's current stream of `device`
// (cuda/stream.h) has finished: what a host reader of that work's results waits for.
void synchronize_current_stream(int device);
// Raises brisk::Error unless `device` can be used, saying why not: built without CUDA, no
// CUDA driver found / driver too old (with CUDA's own message), no CUDA GPU present, or an
// index past the last device. Never falls back to the CPU.
void check_device(int device);
// Multi-line report: CUDA runtime and driver versions, cuBLAS, cuDNN and NCCL versions, the
// GPU architectures the kernels were compiled for, and the devices present.
std::string build_info();

// Makes `device` current for a scope and restores the previous device at its end.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_;
  int device_;
};

}  // namespace brisk::cuda
