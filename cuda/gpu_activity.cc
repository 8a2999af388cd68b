#include "cuda/gpu_activity.h"

#include <algorithm>

namespace brisk::cuda {

double GpuActivity::busy_share() const {
  return window_ns > 0 ? static_cast<double>(busy_ns) / static_cast<double>(window_ns) : 0.0;
}

GpuActivity summarize_gpu_activity(std::vector<GpuInterval> intervals, int64_t window_start_ns, int64_t window_end_ns) {
  GpuActivity activity;
  activity.window_ns = std::max<int64_t>(0, window_end_ns - window_start_ns);
  for (GpuInterval& i : intervals) {
    if (i.kernel && i.start_ns >= window_start_ns && i.start_ns < window_end_ns) ++activity.kernels;
    i.start_ns = std::max(i.start_ns, window_start_ns);
    i.end_ns = std::min(i.end_ns, window_end_ns);
  }
  std::sort(intervals.begin(), intervals.end(),
            [](const GpuInterval& a, const GpuInterval& b) { return a.start_ns < b.start_ns; });
  // Sweep in start order, extending the current union until a gap opens.
  int64_t covered_until = window_start_ns;
  for (const GpuInterval& i : intervals) {
    if (i.end_ns <= i.start_ns || i.end_ns <= covered_until) continue;
    activity.busy_ns += i.end_ns - std::max(i.start_ns, covered_until);
    covered_until = i.end_ns;
  }
  return activity;
}

}  // namespace brisk::cuda
