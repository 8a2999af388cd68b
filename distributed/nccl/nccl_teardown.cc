#include "distributed/nccl/nccl_teardown.h"

#include <thread>

namespace brisk::dist {

bool drain_before_destroy(const std::function<QueuedWork()>& poll_state, std::chrono::milliseconds timeout,
                          std::chrono::milliseconds interval) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    switch (poll_state()) {
      case QueuedWork::kFinished: return true;
      case QueuedWork::kFailed: return false;
      case QueuedWork::kRunning: break;
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(interval);
  }
}

}  // namespace brisk::dist
