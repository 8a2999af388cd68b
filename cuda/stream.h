#pragma once
// CUDA streams. Every kernel of the CUDA backend is launched on the current stream of the
// tensor's device, so work is stream-ordered: users switch streams with a StreamGuard.
//
// The current stream is per thread and per device, like PyTorch's: a StreamGuard on one
// thread does not move another thread's work.
#include <cuda_runtime.h>

#include "cuda/device.h"

namespace brisk::cuda {

// The stream the CUDA backend launches on for `device` (the legacy default stream until a
// guard sets another).
cudaStream_t current_stream(int device);
void set_current_stream(int device, cudaStream_t stream);

// The legacy default stream (0), which synchronizes with every blocking stream.
inline cudaStream_t default_stream() { return nullptr; }

// Work queued on `waiter`, a stream of `waiter_device`, from now on waits for the work queued
// so far on `other`, a stream of `other_device` (an event, no host synchronization). The
// devices are explicit because the default stream's handle (nullptr) means the current
// device's.
void wait_stream(cudaStream_t waiter, int waiter_device, cudaStream_t other, int other_device);

// A stream the user owns: created on `device` at construction, destroyed with the object
// (after its queued work completes; destruction does not wait). It is retired first
// (cuda/memory.h's retire_stream), so tensors that recorded it (record_stream) may outlive
// it. It does not synchronize implicitly with the default stream, so hand data across with
// an Event or wait_stream().
class Stream {
 public:
  // priority: lower numbers run first; 0 is the default, cudaDeviceGetStreamPriorityRange
  // gives the valid range.
  explicit Stream(int device, int priority = 0);
  // On the current device.
  Stream();
  ~Stream();
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t handle() const { return stream_; }
  operator cudaStream_t() const { return stream_; }
  int device() const { return device_; }

  // True when all work queued so far has finished.
  bool query() const;
  void synchronize() const;
  // Work queued on this stream from now on waits for the work queued on `other` so far
  // (the default stream, nullptr: the current device's).
  void wait_stream(cudaStream_t other) const;

 private:
  void destroy() noexcept;

  cudaStream_t stream_ = nullptr;
  int device_ = 0;
};

// For a scope: makes `stream` the current stream of `device` and `device` the current
// device; restores both at the end.
class StreamGuard {
 public:
  StreamGuard(cudaStream_t stream, int device);
  explicit StreamGuard(const Stream& stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  DeviceGuard device_guard_;
  int device_;
  cudaStream_t previous_stream_;
};

}  // namespace brisk::cuda
