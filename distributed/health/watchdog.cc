#include "distributed/health/watchdog.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace brisk::dist {

Watchdog::Watchdog(const Store& store, int rank, int size, const ProcessGroupOptions& options,
                   std::chrono::milliseconds beat_timeout, bool verify, std::string where, FailureHandler on_failure,
                   std::function<void(Watchdog&)> poll)
    : where_(std::move(where)),
      on_failure_(std::move(on_failure)),
      poll_(std::move(poll)),
      step_interval_(beat_timeout.count() > 0
                         ? std::min(DesyncMonitor::kStepInterval, Heartbeat::interval_for(beat_timeout))
                         : DesyncMonitor::kStepInterval),
      monitor_(
          store, rank, size, verify, [this](const std::string& m) { report(m, true); },
          Heartbeat::call_timeout_for(beat_timeout)) {
  if (beat_timeout.count() > 0) {
    std::string consequence =
        options.stall_timeout
            ? fmt::format("the group fails at its stall timeout ({} ms)", options.stall_timeout->count())
            : fmt::format("the collective fails at its timeout ({} ms)", options.timeout.count());
    monitor_.on_stall(beat_timeout, [this, consequence](const std::string& m) {
      if (failed_) return;  // its unfinished collective is no one's to wait for
      std::fprintf(stderr, "%s: warning: %s; %s\n", where_.c_str(), m.c_str(), consequence.c_str());
      std::fflush(stderr);
    });
    heartbeat_.emplace(store, rank, size, beat_timeout,
                       [this](const std::string& m, bool store_answers) { report(m, store_answers); });
  }
  if (options.stall_timeout)
    monitor_.on_stall(*options.stall_timeout, [this, after = options.stall_timeout->count()](const std::string& m) {
      report(fmt::format("stall timeout ({} ms): {}", after, m), true);
    });
  thread_ = std::thread([this] { loop(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

std::string Watchdog::failure(const std::string& cause, int64_t seq, bool store_answers) {
  failed_ = true;
  // A store the heartbeat already found silent (rank 0, its host, stopped or gone) is not
  // asked: the diagnosis first, so that the flight recorder does not ask again either.
  if (auto silence = heartbeat_ ? heartbeat_->store_silence() : std::nullopt) monitor_.store_is_silent(*silence);
  std::string message = fmt::format("{}: {}", where_, cause);
  if (seq >= 0) message += ". " + monitor_.diagnose(seq);
  return message + "\n" + monitor_.flight_record(store_answers);
}

void Watchdog::report(const std::string& cause, bool store_answers) {
  if (failed_.exchange(true)) return;
  on_failure_(failure(cause, -1, store_answers));
}

void Watchdog::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, step_interval_, [this] { return stop_.load(); })) {
    lock.unlock();
    // The monitor does not ask a store the heartbeat just found silent: its call would only
    // give up too, and delay the next beat.
    if ((!heartbeat_ || heartbeat_->beat()) && !stop_) monitor_.step();
    if (poll_ && !stop_) poll_(*this);
    lock.lock();
  }
}

}  // namespace brisk::dist
