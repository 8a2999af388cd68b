#include "profiler/profiler.h"

#include <algorithm>
#include <atomic>

#include "profiler/chrome_trace.h"
#include "tensor/error.h"

namespace brisk::profiler {
namespace {

std::atomic<bool> session_open{false};

}  // namespace

Profiler::~Profiler() {
  if (running_) {
    detail::stop_recording();
    session_open.store(false);
  }
}

void Profiler::start() {
  BRISK_CHECK(!running_, "Profiler::start: this profiler is already recording");
  bool expected = false;
  BRISK_CHECK(session_open.compare_exchange_strong(expected, true),
              "Profiler::start: another profiler of this process is recording (one at a time)");
  running_ = true;
  events_.clear();
  started_ns_ = now_ns();
  detail::start_recording();
}

void Profiler::stop() {
  BRISK_CHECK(running_, "Profiler::stop: this profiler is not recording (call start() first)");
  events_ = detail::stop_recording();
  running_ = false;
  session_open.store(false);
  std::sort(events_.begin(), events_.end(), [](const Event& a, const Event& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
  });
}

void Profiler::export_chrome_trace(const std::string& path, const std::string& process_name) const {
  write_chrome_trace(path, events_, started_ns_, process_name);
}

}  // namespace brisk::profiler
