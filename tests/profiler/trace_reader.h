#pragma once
// Reads a Chrome trace written by Profiler::export_chrome_trace back, for the tests: its
// complete events, and its async begin/end pairs joined into one event each.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace brisk::testing {

struct TraceEvent {
  std::string name;
  std::string cat;
  int64_t tid = 0;
  double ts = 0;   // us
  double dur = 0;  // us
  nlohmann::json args;
  bool async = false;

  double end() const { return ts + dur; }
  bool overlaps(const TraceEvent& other) const { return ts < other.end() && other.ts < end(); }
};

inline std::vector<TraceEvent> read_trace(const std::string& path) {
  std::ifstream in(path);
  INFO(path);
  REQUIRE(in.good());
  nlohmann::json trace = nlohmann::json::parse(in);
  std::vector<TraceEvent> events;
  std::map<int64_t, size_t> open_async;
  for (const nlohmann::json& e : trace.at("traceEvents")) {
    const std::string ph = e.at("ph");
    if (ph == "X" || ph == "b") {
      TraceEvent event{e.at("name"),
                       e.at("cat"),
                       e.at("tid"),
                       e.at("ts"),
                       ph == "X" ? e.at("dur").get<double>() : 0.0,
                       e.value("args", nlohmann::json::object()),
                       ph == "b"};
      if (ph == "b") open_async[e.at("id")] = events.size();
      events.push_back(std::move(event));
    } else if (ph == "e") {
      TraceEvent& begin = events.at(open_async.at(e.at("id")));
      begin.dur = e.at("ts").get<double>() - begin.ts;
    }
  }
  return events;
}

inline std::vector<TraceEvent> events_of(const std::vector<TraceEvent>& events, const std::string& cat) {
  std::vector<TraceEvent> out;
  for (const TraceEvent& e : events) {
    if (e.cat == cat) out.push_back(e);
  }
  return out;
}

}  // namespace brisk::testing
