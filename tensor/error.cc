#include "tensor/error.h"

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "tensor/backtrace.h"

namespace brisk {

namespace {

// BRISK_BACKTRACE set to anything but "" or "0"; read once, so that an Error costs a
// getenv only the first time.
bool backtrace_requested() {
  static const bool requested = [] {
    const char* value = std::getenv("BRISK_BACKTRACE");
    return value != nullptr && std::string(value) != "" && std::string(value) != "0";
  }();
  return requested;
}

// Not inlined, so that it is exactly the one frame between Error's constructor and
// capture_backtrace, which the recorded stack leaves out.
__attribute__((noinline)) std::shared_ptr<const std::vector<void*>> stack_if_requested() {
  if (!backtrace_requested()) return nullptr;
  return std::make_shared<const std::vector<void*>>(capture_backtrace(1));
}

std::terminate_handler previous_terminate_handler = nullptr;

// std::terminate's handler: an uncaught brisk::Error is reported (error.h) and ends the
// program at once with status 1 (as abort() would, without running destructors, which other
// threads may still need); anything else goes to the handler installed before, by default
// the one that names the exception and aborts.
[[noreturn]] void report_uncaught_error() {
  if (std::exception_ptr current = std::current_exception()) {
    try {
      std::rethrow_exception(current);
    } catch (const Error& error) {
      const std::string frames = error.backtrace();
      const std::string report = fmt::format("brisk::Error: {}\n{}", error.what(),
                                             frames.empty() ? "(set BRISK_BACKTRACE=1 for a backtrace)\n"
                                                            : "Backtrace (most recent call first):\n" + frames);
      std::fflush(nullptr);  // what the program printed comes first, and is not lost
      std::fputs(report.c_str(), stderr);
      std::fflush(stderr);
      std::_Exit(1);
    } catch (...) {
    }
  }
  if (previous_terminate_handler != nullptr) previous_terminate_handler();
  std::abort();
}

// Every program that can throw a brisk::Error links this object (Error's constructors are
// here), so the handler is installed in each of them before main runs.
[[maybe_unused]] const bool terminate_handler_installed = [] {
  previous_terminate_handler = std::set_terminate(report_uncaught_error);
  return true;
}();

}  // namespace

Error::Error(const std::string& message) : std::runtime_error(message), frames_(stack_if_requested()) {}

Error::Error(const char* message) : std::runtime_error(message), frames_(stack_if_requested()) {}

std::string Error::backtrace() const { return frames_ != nullptr ? format_backtrace(*frames_) : std::string(); }

void throw_error(const std::string& message) { throw Error(message); }

}  // namespace brisk
