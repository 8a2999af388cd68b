#include "tests/thread_checks.h"

#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace brisk::testing {
namespace {

std::mutex failures_mutex;
std::vector<std::string> failures;
// "rank 2: " on the threads of run_threads, empty elsewhere.
thread_local std::string thread_prefix;

}  // namespace

namespace detail {

std::string where(const char* file, int line, const std::string& check) {
  return std::string(file) + ":" + std::to_string(line) + ": " + check;
}

}  // namespace detail

void record_thread_failure(const std::string& what) {
  std::lock_guard<std::mutex> lock(failures_mutex);
  failures.push_back(thread_prefix + what);
}

std::vector<std::string> take_thread_failures() {
  std::vector<std::string> taken;
  std::lock_guard<std::mutex> lock(failures_mutex);
  taken.swap(failures);
  return taken;
}

void report_thread_failures() {
  for (const std::string& failure : take_thread_failures()) FAIL_CHECK(failure);
}

void run_threads(int n, const char* name, const std::function<void(int index)>& body) {
  std::vector<std::exception_ptr> errors(static_cast<size_t>(n));
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      thread_prefix = std::string(name) + " " + std::to_string(i) + ": ";
      try {
        body(i);
      } catch (const ThreadCheckAbort&) {
        // Recorded by the check that threw.
      } catch (...) {
        errors[static_cast<size_t>(i)] = std::current_exception();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  report_thread_failures();
  for (std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace brisk::testing
