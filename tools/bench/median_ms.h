#pragma once
// The benchmarks' timer: the median wall time of `runs` calls of f, in milliseconds, after
// `warmup` untimed calls.
#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace brisk::bench {

inline double median_ms(int warmup, int runs, const std::function<void()>& f) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    f();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace brisk::bench
