#pragma once
// Checks made on the threads a test starts (rank threads, workers).
//
// Catch2 v2 is not thread-safe: its assertions (CHECK, REQUIRE, INFO, FAIL, ...) may run
// only on the test case's own thread, or its counters race and a failing check can be lost
// or misreported. Code that runs on another thread checks with the THREAD_* macros below
// instead: each failure is recorded, with the check's text, file and line, in one
// process-wide thread-safe list, and the test's thread reports the list with Catch2 after
// the join (run_threads does both).
//
//   testing::run_threads(3, "rank", [&](int rank) {
//     THREAD_CHECK(sum(rank) == 6);       // records a failure and goes on
//     THREAD_REQUIRE(t.defined());        // records a failure and ends this thread's body
//     THREAD_CHECK_THROWS_WITH(f(), Catch::Contains("rank 3"));
//   });
#include <catch2/catch.hpp>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace brisk::testing {

// Runs body(i) on n threads (i = 0..n-1) and joins them; then, on the calling thread (the
// test case's own), fails the test once per recorded failure, each named "<name> i: ...",
// and rethrows the first exception that escaped a body, so a test can still expect one
// with CHECK_THROWS_WITH(run_threads(...), ...).
void run_threads(int n, const char* name, const std::function<void(int index)>& body);

// Records a failure (any thread), prefixed with the thread's name under run_threads.
void record_thread_failure(const std::string& what);

// Fails the test (FAIL_CHECK) once per recorded failure and clears the list. Only on the
// test case's thread, after the threads that record are joined.
void report_thread_failures();

// The recorded failures, in the order recorded; clears the list.
std::vector<std::string> take_thread_failures();

// Thrown by THREAD_REQUIRE and THREAD_FAIL after recording: ends the thread's body; run_threads
// does not rethrow it (the failure is already reported).
struct ThreadCheckAbort {};

namespace detail {

std::string where(const char* file, int line, const std::string& check);

inline bool check(bool ok, const char* file, int line, const char* text) {
  if (!ok) record_thread_failure(where(file, line, text));
  return ok;
}

inline bool matches(const char* expected, const std::string& message) { return message == expected; }
inline bool matches(const std::string& expected, const std::string& message) { return message == expected; }
template <typename Matcher>
bool matches(const Matcher& matcher, const std::string& message) {
  return matcher.match(message);
}

template <typename F, typename Expected>
bool check_throws_with(const F& f, const Expected& expected, const char* file, int line, const char* text) {
  try {
    f();
  } catch (const std::exception& e) {
    if (matches(expected, e.what())) return true;
    record_thread_failure(where(file, line, text) + " threw \"" + e.what() + "\"");
    return false;
  }
  record_thread_failure(where(file, line, text) + " did not throw");
  return false;
}

}  // namespace detail
}  // namespace brisk::testing

#define THREAD_CHECK(...) \
  ::brisk::testing::detail::check(static_cast<bool>(__VA_ARGS__), __FILE__, __LINE__, "THREAD_CHECK(" #__VA_ARGS__ ")")
#define THREAD_CHECK_FALSE(...)                                                        \
  ::brisk::testing::detail::check(!static_cast<bool>(__VA_ARGS__), __FILE__, __LINE__, \
                                  "THREAD_CHECK_FALSE(" #__VA_ARGS__ ")")
#define THREAD_REQUIRE(...)                                                                  \
  do {                                                                                       \
    if (!::brisk::testing::detail::check(static_cast<bool>(__VA_ARGS__), __FILE__, __LINE__, \
                                         "THREAD_REQUIRE(" #__VA_ARGS__ ")"))                \
      throw ::brisk::testing::ThreadCheckAbort{};                                            \
  } while (false)
#define THREAD_CHECK_THAT(arg, matcher) \
  ::brisk::testing::detail::check((matcher).match(arg), __FILE__, __LINE__, "THREAD_CHECK_THAT(" #arg ", " #matcher ")")
#define THREAD_CHECK_THROWS_WITH(expr, expected)                                                              \
  ::brisk::testing::detail::check_throws_with([&] { static_cast<void>(expr); }, expected, __FILE__, __LINE__, \
                                              "THREAD_CHECK_THROWS_WITH(" #expr ", " #expected ")")
#define THREAD_FAIL(message)                                                                                     \
  do {                                                                                                           \
    ::brisk::testing::record_thread_failure(::brisk::testing::detail::where(__FILE__, __LINE__, "THREAD_FAIL") + \
                                            ": " + (message));                                                   \
    throw ::brisk::testing::ThreadCheckAbort{};                                                                  \
  } while (false)
