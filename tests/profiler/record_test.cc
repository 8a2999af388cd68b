// profiler/record.h and the Profiler session: nothing is recorded, and no argument is made,
// while no profiler runs; scopes become events with their thread, nested in time; intervals
// are async; one session at a time.
#include <catch2/catch.hpp>

#include <thread>

#include "profiler/profiler.h"

namespace brisk::profiler {
namespace {

using Catch::Matchers::Contains;

const Event* find(const std::vector<Event>& events, const std::string& name) {
  for (const Event& e : events) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

TEST_CASE("profiler off: scopes record nothing and never make their name or arguments", "[profiler]") {
  REQUIRE_FALSE(is_enabled());
  bool made = false;
  {
    RecordScope scope(Category::User, [&] {
      made = true;
      return std::string("lazy");
    });
    RecordScope with_args(Category::User, "plain", [&] {
      made = true;
      return Args{};
    });
    record_interval(Category::Ddp, "interval", 0, 1);
  }
  CHECK_FALSE(made);
  Profiler prof;
  prof.start();
  prof.stop();
  CHECK(prof.events().empty());  // what ran before start() is not there
}

TEST_CASE("profiler on: nested scopes on two threads, with arguments and thread ids", "[profiler]") {
  Profiler prof;
  prof.start();
  CHECK(is_enabled());
  int64_t interval_start = now_ns();
  {
    RecordScope outer(Category::User, "outer", [] { return Args{{"key", "value"}}; });
    RecordScope inner(Category::Op, [] { return std::string("inner"); });
  }
  std::thread([] { RecordScope scope(Category::DataLoading, "on another thread"); }).join();
  record_interval(Category::Ddp, "interval", interval_start, now_ns());
  prof.stop();
  CHECK_FALSE(is_enabled());

  REQUIRE(prof.events().size() == 4);
  const Event* outer = find(prof.events(), "outer");
  const Event* inner = find(prof.events(), "inner");
  const Event* other = find(prof.events(), "on another thread");
  const Event* interval = find(prof.events(), "interval");
  REQUIRE((outer && inner && other && interval));
  CHECK(outer->args == Args{{"key", "value"}});
  CHECK(inner->category == Category::Op);
  CHECK(outer->start_ns <= inner->start_ns);
  CHECK(inner->end_ns <= outer->end_ns);
  CHECK(outer->thread_id == inner->thread_id);
  CHECK(other->thread_id != outer->thread_id);
  CHECK(other->category == Category::DataLoading);
  CHECK(interval->async);
  CHECK(interval->start_ns == interval_start);
  // Sorted by start.
  for (size_t i = 1; i < prof.events().size(); ++i) {
    CHECK(prof.events()[i - 1].start_ns <= prof.events()[i].start_ns);
  }
}

TEST_CASE("profiler: one session at a time, stop only after start", "[profiler]") {
  Profiler a;
  Profiler b;
  CHECK_THROWS_WITH(a.stop(), Contains("not recording"));
  a.start();
  CHECK_THROWS_WITH(b.start(), Contains("another profiler of this process is recording"));
  CHECK_THROWS_WITH(a.start(), Contains("already recording"));
  a.stop();
  b.start();  // free again
  { RecordScope scope(Category::User, "b's"); }
  b.stop();
  REQUIRE(b.events().size() == 1);
  CHECK(a.events().empty());
}

TEST_CASE("profiler: a destroyed running profiler stops recording", "[profiler]") {
  {
    Profiler prof;
    prof.start();
  }
  CHECK_FALSE(is_enabled());
  Profiler next;
  next.start();
  next.stop();
  CHECK(next.events().empty());
}

}  // namespace
}  // namespace brisk::profiler
