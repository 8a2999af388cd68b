#pragma once
// Events grouped by name with their call count, self and total time: PyTorch's
// prof.key_averages(), and its .table().
//
//   std::cout << prof.key_averages().table("self_cpu_time_total", 10);
//
// An event's total time is its duration; its self time is that minus the durations of the
// events directly nested in it on the same thread (an op's kernels called from another op,
// an autograd node's ops). Async events (record_interval) and GPU times nest nothing and, as
// in PyTorch, have no self (CPU) time.
#include <cstdint>
#include <string>
#include <vector>

#include "profiler/record.h"

namespace brisk::profiler {

struct KeyAverage {
  std::string key;  // the events' name
  int64_t count = 0;
  int64_t self_ns = 0;
  int64_t total_ns = 0;
};

class KeyAverages {
 public:
  explicit KeyAverages(const std::vector<Event>& events);

  // The entry of the events named `key`, or nullptr.
  const KeyAverage* find(const std::string& key) const;

  // The table of PyTorch's EventList.table(): Name, Self CPU %, Self CPU, CPU total %,
  // CPU total, CPU time avg, # of Calls, then "Self CPU time total". sort_by is
  // "self_cpu_time_total", "cpu_time_total" or "count" (descending); at most row_limit rows.
  std::string table(const std::string& sort_by = "self_cpu_time_total", size_t row_limit = 100) const;

 private:
  std::vector<KeyAverage> entries_;
};

// Each event's self time (same order as `events`).
std::vector<int64_t> self_times(const std::vector<Event>& events);

}  // namespace brisk::profiler
