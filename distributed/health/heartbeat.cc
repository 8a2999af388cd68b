#include "distributed/health/heartbeat.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "tensor/error.h"

namespace brisk::dist {
namespace {

using Clock = std::chrono::steady_clock;

std::string beat_key(int rank) { return fmt::format("heartbeat/{}", rank); }

// Added to a rank's count when it destroys its group: a count this large means "left".
constexpr int64_t kLeft = int64_t{1} << 60;

// How long the heartbeat's store calls may take: a stopped store host costs the thread no more.
std::chrono::milliseconds call_timeout_for(std::chrono::milliseconds timeout) {
  return std::min<std::chrono::milliseconds>(timeout / 2, std::chrono::milliseconds(500));
}

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

std::chrono::milliseconds Heartbeat::interval_for(std::chrono::milliseconds timeout) {
  return std::clamp<std::chrono::milliseconds>(timeout / 10, std::chrono::milliseconds(10), std::chrono::seconds(1));
}

Heartbeat::Heartbeat(std::shared_ptr<Store> store, int rank, int size, std::chrono::milliseconds timeout,
                     FailureHandler on_failure)
    : store_(store->with_timeout(call_timeout_for(timeout))),
      rank_(rank),
      size_(size),
      timeout_(timeout),
      interval_(interval_for(timeout)),
      call_timeout_(call_timeout_for(timeout)),
      on_failure_(std::move(on_failure)),
      answered_(Clock::now()),
      seen_(static_cast<size_t>(size), -1),
      changed_(static_cast<size_t>(size), answered_),
      left_(static_cast<size_t>(size), false),
      thread_([this] { loop(); }) {}

Heartbeat::~Heartbeat() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

std::optional<Clock::duration> Heartbeat::store_silence() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Clock::duration silence = Clock::now() - answered_;
  if (store_failed_ || silence <= 2 * interval_) return std::nullopt;
  return silence;
}

Heartbeat::Round Heartbeat::round(int64_t delta) {
  // The counts are as of the round's start: a round this process was stopped in the middle
  // of must not date its reads after the stop.
  const Clock::time_point began = Clock::now();
  Clock::time_point asked = began;
  try {
    store_->add(beat_key(rank_), delta);
    std::vector<int64_t> counts(static_cast<size_t>(size_), -1);
    for (int r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      asked = Clock::now();
      counts[r] = store_->add(beat_key(r), 0);
    }
    for (int r = 0; r < size_; ++r) {
      if (r == rank_ || counts[r] == seen_[r]) continue;
      seen_[r] = counts[r];
      changed_[r] = began;
      left_[r] = counts[r] >= kLeft;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    answered_ = began;
    return Round::kAnswered;
  } catch (const std::exception&) {
    // A call that threw after most of its timeout gave up waiting (a deadline is kept to the
    // millisecond or so); a failure comes sooner (a refused connection, within its back-off).
    if (Clock::now() - asked >= call_timeout_ * 9 / 10) return Round::kSilent;
    // The store's host exited: its death is the transport's and the launcher's to report, and
    // a normal exit of rank 0 looks the same from here. The store is not asked again.
    std::lock_guard<std::mutex> lock(mutex_);
    store_failed_ = true;
    return Round::kFailed;
  }
}

std::string Heartbeat::failure(Round round, Clock::time_point resumed, bool& store_answers) const {
  const Clock::time_point now = Clock::now();
  Clock::time_point answered;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    answered = answered_;
  }
  store_answers = round == Round::kAnswered || now - std::max(answered, resumed) <= timeout_;
  if (!store_answers) {
    return fmt::format(
        "rank 0 (the store's host) is unresponsive: the store has not answered for {:.1f} s (heartbeat timeout {:g} "
        "s)",
        seconds(now - answered), timeout_.count() / 1000.0);
  }
  for (int r = 0; r < size_; ++r) {
    if (r == rank_ || left_[r] || answered - changed_[r] <= timeout_) continue;
    return fmt::format("rank {} is unresponsive: no heartbeat for {:.1f} s (heartbeat timeout {:g} s); it is stopped, "
                       "hung or dead",
                       r, seconds(answered - changed_[r]), timeout_.count() / 1000.0);
  }
  return {};
}

void Heartbeat::loop() {
  // When this process itself was stopped (SIGSTOP, then SIGCONT) or starved, nobody answered
  // it meanwhile: the store's silence is counted from its return, not from before.
  Clock::time_point resumed = Clock::now();
  bool reported = false;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    lock.unlock();
    const Clock::time_point began = Clock::now();
    const Round result = round(1);
    if (result == Round::kFailed) return;
    if (Clock::now() - began > call_timeout_ + timeout_ / 2) resumed = Clock::now();
    bool store_answers = true;
    std::string message = reported ? std::string() : failure(result, resumed, store_answers);
    if (!message.empty()) {
      reported = true;
      on_failure_(message, store_answers);
    }
    lock.lock();
    const Clock::time_point slept = Clock::now();
    wake_.wait_for(lock, interval_, [&] { return stop_; });
    if (Clock::now() - slept > timeout_ / 2) resumed = Clock::now();
  }
  lock.unlock();
  round(kLeft);
}

std::chrono::milliseconds heartbeat_timeout(const ProcessGroupOptions& options) {
  if (options.heartbeat_timeout) {
    BRISK_CHECK(options.heartbeat_timeout->count() >= 0,
                "ProcessGroupOptions::heartbeat_timeout must not be negative, got {} ms",
                options.heartbeat_timeout->count());
    return *options.heartbeat_timeout;
  }
  const char* env = std::getenv("BRISK_HEARTBEAT_TIMEOUT");
  if (env == nullptr || *env == '\0') return kDefaultHeartbeatTimeout;
  char* end = nullptr;
  double value = std::strtod(env, &end);
  BRISK_CHECK(*end == '\0' && std::isfinite(value) && value >= 0,
              "BRISK_HEARTBEAT_TIMEOUT='{}' is not a number of seconds >= 0 (the heartbeat timeout; 0: off)", env);
  return std::chrono::milliseconds(static_cast<int64_t>(std::llround(value * 1000)));
}

}  // namespace brisk::dist
