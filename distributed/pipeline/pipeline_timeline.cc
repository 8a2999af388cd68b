#include "distributed/pipeline/pipeline_timeline.h"

#include <algorithm>
#include <limits>
#include <string>

#include "tensor/error.h"

namespace brisk::dist::pipeline {

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

bool is_computation(const profiler::Event& event) {
  return starts_with(event.name, "pipeline forward ") || starts_with(event.name, "pipeline backward ");
}

}  // namespace

bool is_pipeline_event(const profiler::Event& event) {
  return event.category == profiler::Category::User && starts_with(event.name, "pipeline ");
}

int pipeline_event_rank(const profiler::Event& event) {
  for (const auto& [key, value] : event.args) {
    if (key == "rank") return std::stoi(value);
  }
  BRISK_FAIL("pipeline event '{}' has no rank", event.name);
}

MeasuredBubble measure_bubble(const std::vector<profiler::Event>& events) {
  MeasuredBubble measured;
  int64_t first = std::numeric_limits<int64_t>::max(), last = std::numeric_limits<int64_t>::min();
  for (const profiler::Event& event : events) {
    if (!is_pipeline_event(event)) continue;
    first = std::min(first, event.start_ns);
    last = std::max(last, event.end_ns);
    if (is_computation(event)) measured.busy_ns[pipeline_event_rank(event)] += event.duration_ns();
  }
  BRISK_CHECK(!measured.busy_ns.empty(), "measure_bubble: no pipeline forward or backward among {} events",
              events.size());
  measured.step_ns = last - first;
  for (const auto& [rank, busy] : measured.busy_ns) {
    const double bubble = static_cast<double>(measured.step_ns - busy) / static_cast<double>(busy);
    measured.bubble[rank] = bubble;
    measured.bubble_fraction = std::max(measured.bubble_fraction, bubble);
  }
  return measured;
}

}  // namespace brisk::dist::pipeline
