#include "profiler/profiler.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tensor/error.h"

namespace brisk::profiler {
namespace {

std::atomic<bool> session_open{false};

// The events as a Chrome trace (the JSON of chrome://tracing and ui.perfetto.dev): one complete
// ("ph": "X") event per Event, or a begin/end pair ("b", "e", one "id") for an async one;
// timestamps in microseconds from `origin_ns`, "pid" the process (labelled `process_name`),
// "tid" the thread, "cat" the category, "args" the event's fields.
std::string chrome_trace_json(const std::vector<Event>& events, int64_t origin_ns, const std::string& process_name) {
  const int64_t pid = ::getpid();
  nlohmann::json trace_events = nlohmann::json::array();
  trace_events.push_back(
      {{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", process_name}}}});
  auto micros = [&](int64_t ns) { return static_cast<double>(ns - origin_ns) / 1e3; };
  int64_t async_id = 0;
  for (const Event& e : events) {
    nlohmann::json args = nlohmann::json::object();
    for (const auto& [key, value] : e.args) args[key] = value;
    nlohmann::json event = {{"cat", category_name(e.category)}, {"name", e.name}, {"pid", pid}, {"tid", e.thread_id}};
    if (e.async) {
      // A begin/end pair with one id: Perfetto draws it on its own track, free to overlap.
      event["id"] = ++async_id;
      nlohmann::json end = event;
      event.update({{"ph", "b"}, {"ts", micros(e.start_ns)}, {"args", std::move(args)}});
      end.update({{"ph", "e"}, {"ts", micros(e.end_ns)}});
      trace_events.push_back(std::move(event));
      trace_events.push_back(std::move(end));
    } else {
      event.update({{"ph", "X"},
                    {"ts", micros(e.start_ns)},
                    {"dur", static_cast<double>(e.duration_ns()) / 1e3},
                    {"args", std::move(args)}});
      trace_events.push_back(std::move(event));
    }
  }
  return nlohmann::json{{"traceEvents", std::move(trace_events)}, {"displayTimeUnit", "ms"}}.dump();
}

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
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  BRISK_CHECK(out.good(), "profiler: cannot open the trace file {} for writing", path);
  out << chrome_trace_json(events_, started_ns_, process_name);
  out.close();
  BRISK_CHECK(out.good(), "profiler: writing the trace file {} failed (disk full?)", path);
}

}  // namespace brisk::profiler
