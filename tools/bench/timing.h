#pragma once
// The benchmarks' timing: the median of measurements, and the median wall time of a function.
#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace brisk::bench {

// The median of `values` (the upper middle one of an even count); 0 when there are none.
inline double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Milliseconds of wall time since `start`.
inline double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The median wall time of `runs` calls of f, in milliseconds, after `warmup` untimed calls.
inline double median_ms(int warmup, int runs, const std::function<void()>& f) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    f();
    times.push_back(ms_since(start));
  }
  return median(times);
}

}  // namespace brisk::bench
