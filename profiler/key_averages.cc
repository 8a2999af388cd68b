#include "profiler/key_averages.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

#include "tensor/error.h"

namespace brisk::profiler {
namespace {

// PyTorch's _format_time: microseconds with three decimals, in us, ms or s.
std::string format_time(int64_t ns) {
  double us = static_cast<double>(ns) / 1e3;
  if (us >= 1e6) return fmt::format("{:.3f}s", us / 1e6);
  if (us >= 1e3) return fmt::format("{:.3f}ms", us / 1e3);
  return fmt::format("{:.3f}us", us);
}

std::string format_share(int64_t ns, int64_t total_ns) {
  return fmt::format("{:.2f}%", total_ns == 0 ? 0.0 : static_cast<double>(ns) * 100.0 / static_cast<double>(total_ns));
}

}  // namespace

std::vector<int64_t> self_times(const std::vector<Event>& events) {
  std::vector<int64_t> self(events.size());
  std::map<int64_t, std::vector<size_t>> by_thread;
  for (size_t i = 0; i < events.size(); ++i) {
    // As PyTorch: an async span or a GPU time is no CPU work of its own.
    bool on_cpu = !events[i].async && events[i].category != Category::Kernel;
    self[i] = on_cpu ? events[i].duration_ns() : 0;
    if (on_cpu) by_thread[events[i].thread_id].push_back(i);
  }
  for (auto& [thread, order] : by_thread) {
    // Parents before their children: earlier start first, and the longer of two equal starts.
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      if (events[a].start_ns != events[b].start_ns) return events[a].start_ns < events[b].start_ns;
      return events[a].end_ns > events[b].end_ns;
    });
    std::vector<size_t> open;
    for (size_t i : order) {
      while (!open.empty() && events[open.back()].end_ns <= events[i].start_ns) open.pop_back();
      if (!open.empty()) self[open.back()] -= events[i].duration_ns();
      open.push_back(i);
    }
  }
  return self;
}

KeyAverages::KeyAverages(const std::vector<Event>& events) {
  std::vector<int64_t> self = self_times(events);
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < events.size(); ++i) {
    auto [it, inserted] = index.emplace(events[i].name, entries_.size());
    if (inserted) entries_.push_back(KeyAverage{events[i].name});
    KeyAverage& entry = entries_[it->second];
    entry.count += 1;
    entry.self_ns += self[i];
    entry.total_ns += events[i].duration_ns();
  }
}

const KeyAverage* KeyAverages::find(const std::string& key) const {
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const KeyAverage& e) { return e.key == key; });
  return it == entries_.end() ? nullptr : &*it;
}

std::string KeyAverages::table(const std::string& sort_by, size_t row_limit) const {
  auto value = [&](const KeyAverage& e) -> int64_t {
    if (sort_by == "self_cpu_time_total") return e.self_ns;
    if (sort_by == "cpu_time_total") return e.total_ns;
    return e.count;
  };
  BRISK_CHECK(sort_by == "self_cpu_time_total" || sort_by == "cpu_time_total" || sort_by == "count",
              "KeyAverages::table: unknown sort_by \"{}\" (self_cpu_time_total, cpu_time_total or count)", sort_by);
  std::vector<KeyAverage> rows = entries_;
  std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) { return value(a) > value(b); });
  if (rows.size() > row_limit) rows.resize(row_limit);

  // PyTorch's layout: a name column as wide as the longest name plus 4 (at most 55, longer
  // names cut with "..."), then 12-wide columns, all right-aligned, each followed by 2 spaces.
  constexpr size_t kMaxName = 55;
  constexpr size_t kColumn = 12;
  size_t name_width = 0;
  for (const auto& e : entries_) name_width = std::max(name_width, e.key.size() + 4);
  name_width = std::min(name_width, kMaxName);
  const int64_t self_total = std::accumulate(entries_.begin(), entries_.end(), int64_t{0},
                                             [](int64_t s, const auto& e) { return s + e.self_ns; });

  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = fmt::format("{:>{}}  ", cells[0], name_width);
    for (size_t i = 1; i < cells.size(); ++i) out += fmt::format("{:>{}}  ", cells[i], kColumn);
    return out + "\n";
  };
  std::string separator = std::string(name_width, '-') + "  ";
  for (int i = 0; i < 6; ++i) separator += std::string(kColumn, '-') + "  ";
  separator += "\n";

  std::string out = separator;
  out += line({"Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"});
  out += separator;
  for (const KeyAverage& e : rows) {
    std::string name = e.key.size() >= kMaxName - 3 ? e.key.substr(0, kMaxName - 3) + "..." : e.key;
    out +=
        line({name, format_share(e.self_ns, self_total), format_time(e.self_ns), format_share(e.total_ns, self_total),
              format_time(e.total_ns), format_time(e.count == 0 ? 0 : e.total_ns / e.count), std::to_string(e.count)});
  }
  out += separator;
  out += fmt::format("Self CPU time total: {}\n", format_time(self_total));
  return out;
}

}  // namespace brisk::profiler
