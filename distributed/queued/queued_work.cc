#include "distributed/queued/queued_work.h"

namespace brisk::dist {

bool QueuedWork::is_completed() {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_;
}

bool QueuedWork::is_success() {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_ && !error_;
}

void QueuedWork::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [&] { return done_; });
  if (error_) std::rethrow_exception(error_);
}

std::optional<std::chrono::steady_clock::time_point> QueuedWork::completed_at() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!done_) return std::nullopt;
  return completed_at_;
}

void QueuedWork::finish(std::exception_ptr error) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (done_) return;
  done_ = true;
  completed_at_ = std::chrono::steady_clock::now();
  error_ = std::move(error);
  cv_.notify_all();
}

WorkQueue::WorkQueue() : thread_([this] { loop(); }) {}

WorkQueue::~WorkQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void WorkQueue::push(Task task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(task));
  }
  cv_.notify_all();
}

void WorkQueue::loop() {
  for (;;) {
    Task task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stop_ and drained
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      task.run();
      task.work->finish(nullptr);
    } catch (...) {
      task.work->finish(std::current_exception());
    }
  }
}

}  // namespace brisk::dist
