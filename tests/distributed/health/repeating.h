#pragma once
// Repeating: calls `step` every `interval` on a thread of its own until destroyed, as a
// group's Watchdog calls Heartbeat::beat() and DesyncMonitor::step(); for tests of those parts.
#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

namespace brisk::testing {

class Repeating {
 public:
  Repeating(std::chrono::milliseconds interval, std::function<void()> step)
      : step_(std::move(step)), thread_([this, interval] {
          while (!stop_) {
            step_();
            std::this_thread::sleep_for(interval);
          }
        }) {}
  ~Repeating() {
    stop_ = true;
    thread_.join();
  }
  Repeating(const Repeating&) = delete;
  Repeating& operator=(const Repeating&) = delete;

 private:
  std::function<void()> step_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace brisk::testing
