#include "distributed/work.h"

#include <mutex>

namespace brisk::dist {
namespace {

class ThenWork final : public Work {
 public:
  ThenWork(std::shared_ptr<Work> first, std::function<Tensor()> next)
      : first_(std::move(first)), next_(std::move(next)) {}
  bool is_completed() override { return first_->is_completed(); }
  bool is_success() override { return first_->is_success(); }
  void wait() override {
    first_->wait();
    std::lock_guard<std::mutex> lock(mutex_);
    if (!ran_) {
      result_ = next_();
      ran_ = true;
    }
  }
  std::optional<std::chrono::steady_clock::time_point> completed_at() override { return first_->completed_at(); }
  Tensor result() override {
    std::lock_guard<std::mutex> lock(mutex_);
    return result_;
  }

 private:
  std::shared_ptr<Work> first_;
  std::function<Tensor()> next_;
  std::mutex mutex_;
  bool ran_ = false;
  Tensor result_;
};

}  // namespace

std::shared_ptr<Work> Work::then(std::function<Tensor()> next) {
  return std::make_shared<ThenWork>(shared_from_this(), std::move(next));
}

}  // namespace brisk::dist
