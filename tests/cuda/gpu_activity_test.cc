// The kernels and busy time of a window, from intervals as CUPTI reports them.
#include "cuda/gpu_activity.h"

#include <catch2/catch.hpp>

using brisk::cuda::GpuActivity;
using brisk::cuda::GpuInterval;
using brisk::cuda::summarize_gpu_activity;

TEST_CASE("gpu activity: disjoint kernels add their times") {
  GpuActivity a = summarize_gpu_activity({{10, 20, true}, {30, 35, true}, {50, 60, true}}, 0, 100);
  CHECK(a.kernels == 3);
  CHECK(a.window_ns == 100);
  CHECK(a.busy_ns == 25);
  CHECK(a.busy_share() == Approx(0.25));
}

TEST_CASE("gpu activity: overlapping work counts once, in any order") {
  // Two streams: [10, 40) and [20, 30) nested, [35, 50) overlapping the first, [60, 70) apart.
  GpuActivity a = summarize_gpu_activity({{60, 70, true}, {20, 30, true}, {35, 50, false}, {10, 40, true}}, 0, 100);
  CHECK(a.kernels == 3);  // the copy is busy time, not a kernel
  CHECK(a.busy_ns == 40 + 10);
}

TEST_CASE("gpu activity: intervals are clipped to the window") {
  // One starts before the window (busy, but not a kernel of the window), one ends after it,
  // one lies wholly outside.
  GpuActivity a =
      summarize_gpu_activity({{90, 120, true}, {150, 180, true}, {190, 250, true}, {300, 310, true}}, 100, 200);
  CHECK(a.kernels == 2);
  CHECK(a.busy_ns == 20 + 30 + 10);
  CHECK(a.busy_share() == Approx(0.6));
}

TEST_CASE("gpu activity: an empty window or no work") {
  CHECK(summarize_gpu_activity({}, 0, 100).busy_ns == 0);
  CHECK(summarize_gpu_activity({}, 0, 100).busy_share() == 0.0);
  GpuActivity empty = summarize_gpu_activity({{0, 10, true}}, 50, 50);
  CHECK(empty.window_ns == 0);
  CHECK(empty.kernels == 0);
  CHECK(empty.busy_share() == 0.0);
}

TEST_CASE("gpu activity: back-to-back kernels leave no gap and no double count") {
  GpuActivity a = summarize_gpu_activity({{0, 10, true}, {10, 20, true}, {20, 30, true}}, 0, 30);
  CHECK(a.kernels == 3);
  CHECK(a.busy_ns == 30);
  CHECK(a.busy_share() == Approx(1.0));
}
