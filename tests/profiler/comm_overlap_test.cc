// dist::comm_overlap on timelines built by hand: the union of the buckets' [launch, reduced]
// spans split at the end of backward.
#include <catch2/catch.hpp>

#include "distributed/ddp/comm_overlap.h"

namespace brisk::dist {
namespace {

using Clock = ReducerTimeline::Clock;

Clock::time_point at_ms(int64_t ms) { return Clock::time_point(std::chrono::milliseconds(ms)); }

ReducerTimeline timeline(std::vector<std::pair<int64_t, int64_t>> buckets, int64_t backward_end) {
  ReducerTimeline t;
  for (auto [launched, reduced] : buckets) {
    t.bucket_launched.push_back(at_ms(launched));
    t.bucket_reduced.push_back(at_ms(reduced));
  }
  t.backward_end = at_ms(backward_end);
  return t;
}

TEST_CASE("comm_overlap: hidden before the end of backward, exposed after", "[ddp]") {
  // Buckets 0 and 1 overlap (one span 10..40), bucket 2 after a gap (50..70); backward ends at 60.
  CommOverlap o = comm_overlap(timeline({{10, 30}, {20, 40}, {50, 70}}, 60));
  CHECK(o.communication_ms == Approx(50));
  CHECK(o.hidden_ms == Approx(40));
  CHECK(o.exposed_ms == Approx(10));
  CHECK(o.hidden_fraction() == Approx(0.8));
}

TEST_CASE("comm_overlap: all hidden, all exposed, nothing recorded", "[ddp]") {
  CHECK(comm_overlap(timeline({{0, 5}}, 10)).hidden_fraction() == Approx(1.0));
  CommOverlap late = comm_overlap(timeline({{10, 14}, {12, 20}}, 10));
  CHECK(late.exposed_ms == Approx(10));
  CHECK(late.hidden_fraction() == Approx(0.0));
  CommOverlap none = comm_overlap(ReducerTimeline{});
  CHECK(none.communication_ms == 0);
  CHECK(none.hidden_fraction() == 1.0);
  CommOverlap sum = comm_overlap(timeline({{10, 30}, {20, 40}, {50, 70}}, 60));
  sum += late;
  CHECK(sum.communication_ms == Approx(60));
  CHECK(sum.hidden_fraction() == Approx(40.0 / 60.0));
}

}  // namespace
}  // namespace brisk::dist
