#pragma once
// CUDA events: markers in a stream's work, to order work across streams and to time it.
#include <cuda_runtime.h>

#include "cuda/stream.h"

namespace brisk::cuda {

// Created lazily on the device of the first stream it is recorded on; destroyed with the
// object. Recording again moves the marker to the new point.
class Event {
 public:
  // enable_timing: needed for elapsed_time(); costs a little on every record.
  // blocking: synchronize() sleeps instead of spinning.
  explicit Event(bool enable_timing = false, bool blocking = false);
  ~Event();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  // Marks the work queued on `stream` so far.
  void record(cudaStream_t stream);
  // On the current stream of the current device.
  void record();
  // Work queued on `stream` from now on waits until this event has completed. A no-op
  // before the first record(), as in CUDA.
  void wait(cudaStream_t stream) const;
  // True when the marked work has finished (or the event was never recorded).
  bool query() const;
  void synchronize() const;
  // Milliseconds from this event to `end`; both recorded, completed and made with timing.
  float elapsed_time(const Event& end) const;

  bool recorded() const { return event_ != nullptr; }
  cudaEvent_t handle() const { return event_; }
  int device() const { return device_; }

 private:
  cudaEvent_t event_ = nullptr;
  int device_ = -1;
  unsigned flags_;
};

}  // namespace brisk::cuda
