// KeyAverages against PyTorch: the events of tests/fixtures/profiler_table.json
// (tools/fixtures/gen_profiler_fixtures.py) give, character for character, the tables that
// torch's EventList.key_averages().table() printed for them; and self times by nesting.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>

#include "profiler/key_averages.h"

namespace brisk::profiler {
namespace {

using Catch::Matchers::Contains;

Event event(std::string name, int64_t thread, int64_t start_us, int64_t end_us) {
  Event e;
  e.name = std::move(name);
  e.thread_id = thread;
  e.start_ns = start_us * 1000;
  e.end_ns = end_us * 1000;
  return e;
}

TEST_CASE("key_averages: the table PyTorch prints for the same events", "[profiler]") {
  std::ifstream in("tests/fixtures/profiler_table.json");
  REQUIRE(in.good());
  nlohmann::json fixture = nlohmann::json::parse(in);
  std::vector<Event> events;
  for (const auto& e : fixture.at("events")) {
    events.push_back(event(e.at("name"), e.at("thread"), e.at("start_us"), e.at("end_us")));
  }
  KeyAverages averages(events);
  for (const auto& t : fixture.at("tables")) {
    std::string sort_by = t.at("sort_by");
    INFO(sort_by);
    CHECK(averages.table(sort_by, t.at("row_limit")) == t.at("table").get<std::string>());
  }
}

TEST_CASE("key_averages: self time is total minus directly nested events of the same thread", "[profiler]") {
  std::vector<Event> events = {event("parent", 1, 0, 100), event("child", 1, 10, 60), event("grandchild", 1, 20, 30),
                               event("child", 1, 70, 80), event("other thread", 2, 10, 90)};
  Event interval = event("async", 1, 5, 95);
  interval.async = true;  // overlaps, nests nothing, nested in nothing, no CPU time of its own
  events.push_back(interval);
  std::vector<int64_t> self = self_times(events);
  CHECK(self == std::vector<int64_t>{40000, 40000, 10000, 10000, 80000, 0});
  KeyAverages averages(events);
  const KeyAverage* child = averages.find("child");
  REQUIRE(child);
  CHECK(child->count == 2);
  CHECK(child->total_ns == 60000);
  CHECK(child->self_ns == 50000);
  CHECK(averages.find("missing") == nullptr);
  CHECK_THROWS_WITH(averages.table("cuda_time_total"), Contains("unknown sort_by \"cuda_time_total\""));
}

}  // namespace
}  // namespace brisk::profiler
