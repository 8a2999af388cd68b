#pragma once
// The Work of a queued process group (Gloo's, MPI's) and the queue that runs its operations:
// internal to QueuedGroup (queued_group.h).
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "distributed/work.h"

namespace brisk::dist {

// Completed by finish(): the first call decides success or the error; later calls are
// ignored (a Work failed early by the desync monitor stays failed when its operation ends).
class QueuedWork : public Work {
 public:
  bool is_completed() override;
  bool is_success() override;
  void wait() override;
  std::optional<std::chrono::steady_clock::time_point> completed_at() override;
  void finish(std::exception_ptr error);

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::chrono::steady_clock::time_point completed_at_;
  std::exception_ptr error_;
};

// A queue of operations drained in order by one thread: each task's run() ends its Work,
// successfully or with the exception it threw. The destructor runs what is queued first.
class WorkQueue {
 public:
  struct Task {
    std::shared_ptr<QueuedWork> work;
    std::function<void()> run;
  };

  WorkQueue();
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  void push(Task task);

 private:
  void loop();

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Task> queue_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace brisk::dist
