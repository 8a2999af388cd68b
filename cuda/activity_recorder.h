#pragma once
// Records the GPU's kernels, memory copies and memsets between start() and stop() through
// CUPTI's activity API (the records PyTorch's profiler and Nsight Systems read), for the
// benchmarks' kernels per step and GPU-busy share (cuda/gpu_activity.h). Recording slows
// launches a little: time a step without it and count with it, in separate steps.
//
// Free of CUDA headers; in a build without CUDA, start() raises "built without CUDA". One
// recorder at a time per process, and not under another CUPTI client (ncu, nsys).
#include "cuda/gpu_activity.h"

namespace brisk::cuda {

class ActivityRecorder {
 public:
  ActivityRecorder() = default;
  // Stops recording if still started (its records are dropped).
  ~ActivityRecorder();
  ActivityRecorder(const ActivityRecorder&) = delete;
  ActivityRecorder& operator=(const ActivityRecorder&) = delete;

  // Starts the window and enables the records of every device.
  void start();
  // Ends the window and summarizes it. Synchronize the devices first: work still queued when
  // stop() is called is cut off at the window's end or missed.
  GpuActivity stop();

 private:
  bool started_ = false;
  int64_t window_start_ns_ = 0;
};

}  // namespace brisk::cuda
