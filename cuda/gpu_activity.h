#pragma once
// What a GPU did during a stretch of host time: how many kernels it ran, and for how much of
// that time it was busy (at least one kernel, memory copy or memset running). A step whose
// busy share is far below 1 is bound by the host's launches, not by GPU work; one whose kernel
// count is high runs many small kernels (issue 33's measurements: docs/gpu.md, "Kernels per
// step and the GPU-busy share").
//
// Free of CUDA: the intervals come from CUPTI (cuda/activity_recorder.h) on a GPU and from
// tests anywhere.
#include <cstdint>
#include <vector>

namespace brisk::cuda {

// One piece of GPU work, on the clock of the window it is summarized against.
struct GpuInterval {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  bool kernel = true;  // false: a memory copy or memset (busy time, but not a kernel)
};

struct GpuActivity {
  int64_t kernels = 0;    // kernels that started inside the window
  int64_t window_ns = 0;  // the window's length
  int64_t busy_ns = 0;    // the window's time covered by at least one interval
  // busy_ns / window_ns; 0 for an empty window.
  double busy_share() const;
};

// The activity of `intervals` clipped to [window_start_ns, window_end_ns): overlapping
// intervals (concurrent streams or devices) count once towards busy_ns.
GpuActivity summarize_gpu_activity(std::vector<GpuInterval> intervals, int64_t window_start_ns, int64_t window_end_ns);

}  // namespace brisk::cuda
