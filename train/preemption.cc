#include "train/preemption.h"

#include <signal.h>

#include <string>

#include "tensor/error.h"

namespace brisk::train {
namespace {

constexpr const char* kStopKey = "preemption/stop_after";

std::atomic<int> received_signal{0};
struct sigaction previous_term {};
struct sigaction previous_usr1 {};

// The first signal counts; a repeated one (the launcher passing on what the job got, then the
// job's own) changes nothing.
void on_signal(int signal) {
  int expected = 0;
  received_signal.compare_exchange_strong(expected, signal);
}

dist::Bytes bytes_of(const std::string& s) { return dist::Bytes(s.begin(), s.end()); }

}  // namespace

Preemption::Preemption(std::shared_ptr<dist::Store> store) : store_(std::move(store)) {
  received_signal.store(0);
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &action, &previous_term);
  sigaction(SIGUSR1, &action, &previous_usr1);
}

Preemption::~Preemption() {
  sigaction(SIGTERM, &previous_term, nullptr);
  sigaction(SIGUSR1, &previous_usr1, nullptr);
}

bool Preemption::stop_after(int64_t step) {
  if (stop_step_ >= 0) return step >= stop_step_;
  const int mine = received_signal.load();
  if (store_ == nullptr) {
    if (mine == 0) return false;
    signal_ = mine;
    stop_step_ = step;
    return true;
  }
  if (mine != 0 && !proposed_) {
    // The first proposal wins; the value holds the step and the signal ("12 15").
    proposed_ = true;
    store_->compare_set(kStopKey, {}, bytes_of(fmt::format("{} {}", step + 1, mine)));
  }
  if (!store_->check({kStopKey})) return false;
  const dist::Bytes value = store_->get(kStopKey);
  const std::string text(value.begin(), value.end());
  const size_t space = text.find(' ');
  stop_step_ = std::stoll(text.substr(0, space));
  signal_ = std::stoi(text.substr(space + 1));
  BRISK_CHECK(step <= stop_step_,
              "preemption: this rank finished step {}, past step {} at which the ranks agreed to stop (the store's "
              "{} = '{}'): the ranks were not in lock step",
              step, stop_step_, kStopKey, text);
  return step >= stop_step_;
}

}  // namespace brisk::train
