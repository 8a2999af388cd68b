#pragma once
// brisk::profiler::Profiler: records what a program does between start() and stop(), as
// torch.profiler.profile:
//
//   profiler::Profiler prof;
//   prof.start();
//   loss = model->forward(x).sum(); loss.backward(); opt.step();
//   prof.stop();
//   prof.export_chrome_trace("trace.json");            // ui.perfetto.dev, chrome://tracing
//   std::cout << prof.key_averages().table("self_cpu_time_total", 10);
//
// What is recorded (CUDA work as its host-side launch; CUDA builds also mark each op as an
// NVTX range) and what it costs when off: docs/profiler.md. One profiler records at a time,
// for every thread of the process.
#include <string>
#include <vector>

#include "profiler/key_averages.h"
#include "profiler/record.h"

namespace brisk::profiler {

class Profiler {
 public:
  Profiler() = default;
  // Stops a running session (its events are then dropped with the profiler).
  ~Profiler();
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  // Starts recording; an error if another Profiler of the process is recording.
  void start();
  // Stops and collects every thread's events (sorted by start). An error if not started.
  void stop();
  bool is_running() const { return running_; }

  // The events of the last start()..stop().
  const std::vector<Event>& events() const { return events_; }
  KeyAverages key_averages() const { return KeyAverages(events_); }
  // The Chrome trace of events(), times from start(); `process_name` labels the process.
  void export_chrome_trace(const std::string& path, const std::string& process_name = "brisk") const;

 private:
  bool running_ = false;
  int64_t started_ns_ = 0;
  std::vector<Event> events_;
};

}  // namespace brisk::profiler
