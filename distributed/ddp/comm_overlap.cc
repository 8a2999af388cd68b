#include "distributed/ddp/comm_overlap.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace brisk::dist {
namespace {

double ms(ReducerTimeline::Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

}  // namespace

CommOverlap comm_overlap(const ReducerTimeline& timeline) {
  using TimePoint = ReducerTimeline::Clock::time_point;
  CommOverlap overlap;
  if (timeline.bucket_launched.empty() || timeline.bucket_launched.size() != timeline.bucket_reduced.size()) {
    return overlap;
  }
  std::vector<std::pair<TimePoint, TimePoint>> spans;
  for (size_t b = 0; b < timeline.bucket_launched.size(); ++b) {
    spans.emplace_back(timeline.bucket_launched[b], std::max(timeline.bucket_launched[b], timeline.bucket_reduced[b]));
  }
  std::sort(spans.begin(), spans.end());
  // Merge into disjoint spans, then split each at the end of backward.
  auto add = [&](TimePoint begin, TimePoint end) {
    TimePoint split = std::clamp(timeline.backward_end, begin, end);
    overlap.hidden_ms += ms(split - begin);
    overlap.exposed_ms += ms(end - split);
  };
  TimePoint begin = spans[0].first;
  TimePoint end = spans[0].second;
  for (size_t i = 1; i < spans.size(); ++i) {
    if (spans[i].first > end) {
      add(begin, end);
      begin = spans[i].first;
    }
    end = std::max(end, spans[i].second);
  }
  add(begin, end);
  overlap.communication_ms = overlap.hidden_ms + overlap.exposed_ms;
  return overlap;
}

}  // namespace brisk::dist
