// tests/thread_checks.h: what the THREAD_* checks record on another thread, and what
// run_threads reports on the test's thread.
#include "tests/thread_checks.h"

#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace brisk::testing {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;

// Runs body on one plain thread (no run_threads, so nothing is reported) and returns what it recorded.
template <typename F>
std::vector<std::string> recorded_by(const F& body) {
  std::thread([&] {
    try {
      body();
    } catch (const ThreadCheckAbort&) {
      // THREAD_REQUIRE or THREAD_FAIL recorded it.
    }
  }).join();
  return take_thread_failures();
}

TEST_CASE("THREAD_CHECK records its text and place when false, and goes on") {
  int after = 0;
  auto failures = recorded_by([&] {
    int two = 2;
    THREAD_CHECK(two == 2);
    THREAD_CHECK(two == 3);
    THREAD_CHECK_FALSE(two == 2);
    after = 1;
  });
  CHECK(after == 1);
  REQUIRE(failures.size() == 2);
  CHECK_THAT(failures[0], Contains("thread_checks_test.cc:") && EndsWith(": THREAD_CHECK(two == 3)"));
  CHECK_THAT(failures[1], EndsWith(": THREAD_CHECK_FALSE(two == 2)"));
}

TEST_CASE("THREAD_REQUIRE and THREAD_FAIL record and end the thread's body") {
  int reached = 0;
  auto failures = recorded_by([&] {
    THREAD_REQUIRE(reached == 1);
    reached = 1;
  });
  CHECK(reached == 0);
  REQUIRE(failures.size() == 1);
  CHECK_THAT(failures[0], EndsWith(": THREAD_REQUIRE(reached == 1)"));

  failures = recorded_by([&] {
    THREAD_FAIL("no error from rank " + std::to_string(2));
    reached = 2;
  });
  CHECK(reached == 0);
  REQUIRE(failures.size() == 1);
  CHECK_THAT(failures[0], EndsWith(": THREAD_FAIL: no error from rank 2"));
}

TEST_CASE("THREAD_CHECK_THROWS_WITH and THREAD_CHECK_THAT match like Catch2's") {
  auto throws = [](const std::string& what) { throw std::runtime_error(what); };
  auto failures = recorded_by([&] {
    THREAD_CHECK_THROWS_WITH(throws("rank 1 of 2: bad dtype"), Contains("bad dtype"));
    THREAD_CHECK_THROWS_WITH(throws("exact"), "exact");
    THREAD_CHECK_THAT(std::string("rank 0"), Contains("rank"));
    THREAD_CHECK_THROWS_WITH(throws("other"), Contains("bad dtype"));
    THREAD_CHECK_THROWS_WITH(static_cast<void>(0), "exact");
    THREAD_CHECK_THAT(std::string("rank 0"), Contains("rank 1"));
  });
  REQUIRE(failures.size() == 3);
  CHECK_THAT(failures[0],
             EndsWith("THREAD_CHECK_THROWS_WITH(throws(\"other\"), Contains(\"bad dtype\")) threw \"other\""));
  CHECK_THAT(failures[1], EndsWith("THREAD_CHECK_THROWS_WITH(static_cast<void>(0), \"exact\") did not throw"));
  CHECK_THAT(failures[2], EndsWith("THREAD_CHECK_THAT(std::string(\"rank 0\"), Contains(\"rank 1\"))"));
}

TEST_CASE("run_threads names the thread of a failure and rethrows the first exception that escaped") {
  CHECK_THROWS_WITH(run_threads(3, "rank",
                                [](int rank) {
                                  if (rank >= 1) throw std::runtime_error("rank " + std::to_string(rank) + " failed");
                                }),
                    "rank 1 failed");
  std::vector<int> ran(4, 0);
  run_threads(4, "worker", [&](int i) { ran[static_cast<size_t>(i)] = 1; });
  CHECK(ran == std::vector<int>{1, 1, 1, 1});
}

// Passes only if the check that failed on a thread failed the test ([!shouldfail]).
TEST_CASE("run_threads fails the test for a check that failed on one of its threads", "[!shouldfail]") {
  run_threads(2, "rank", [](int rank) { THREAD_CHECK(rank == 0); });
}

}  // namespace
}  // namespace brisk::testing
