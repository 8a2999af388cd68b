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

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

std::chrono::milliseconds Heartbeat::interval_for(std::chrono::milliseconds timeout) {
  return std::clamp<std::chrono::milliseconds>(timeout / 10, std::chrono::milliseconds(10), std::chrono::seconds(1));
}

std::chrono::milliseconds Heartbeat::call_timeout_for(std::chrono::milliseconds timeout) {
  constexpr std::chrono::milliseconds kLongest(500);
  return timeout.count() > 0 ? std::min(timeout / 2, kLongest) : kLongest;
}

Heartbeat::Heartbeat(const Store& store, int rank, int size, std::chrono::milliseconds timeout,
                     FailureHandler on_failure)
    : store_(store.with_timeout(call_timeout_for(timeout))),
      rank_(rank),
      size_(size),
      timeout_(timeout),
      interval_(interval_for(timeout)),
      call_timeout_(call_timeout_for(timeout)),
      on_failure_(std::move(on_failure)),
      answered_(Clock::now()),
      returned_(answered_),
      resumed_(answered_),
      seen_(static_cast<size_t>(size), -1),
      changed_(static_cast<size_t>(size), answered_),
      left_(static_cast<size_t>(size), false) {}

Heartbeat::~Heartbeat() {
  if (store_failed_) return;
  try {
    store_->add(beat_key(rank_), kLeft);
  } catch (const std::exception&) {
    // The store hangs or is gone: the peers see this rank's count stop, as for a death.
  }
}

std::optional<Clock::duration> Heartbeat::store_silence() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Clock::duration silence = Clock::now() - answered_;
  if (store_failed_ || silence <= 2 * interval_) return std::nullopt;
  return silence;
}

bool Heartbeat::beat() {
  const Clock::time_point now = Clock::now();
  // Between two calls come the caller's sleep and its other work (a Watchdog's: store calls
  // that give up within twice call_timeout); a longer gap means this process was stopped or
  // starved.
  if (now - returned_ > 2 * call_timeout_ + timeout_ / 2) resumed_ = now;
  if (last_ != Round::kFailed && now - began_ >= interval_) {
    began_ = now;
    last_ = round();
    // A round longer than its calls could take: the process was stopped during it.
    if (Clock::now() - now > call_timeout_ + timeout_ / 2) resumed_ = Clock::now();
    bool store_answers = true;
    std::string message = reported_ || last_ == Round::kFailed ? std::string() : failure(last_, store_answers);
    if (!message.empty()) {
      reported_ = true;
      on_failure_(message, store_answers);
    }
  }
  returned_ = Clock::now();
  return last_ != Round::kSilent;
}

Heartbeat::Round Heartbeat::round() {
  // The counts are as of the round's start: a round this process was stopped in the middle
  // of must not date its reads after the stop.
  const Clock::time_point began = Clock::now();
  Clock::time_point asked = began;
  try {
    store_->add(beat_key(rank_), 1);
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

std::string Heartbeat::failure(Round round, bool& store_answers) const {
  // answered_ is written by beat() only, so beat() reads it without the lock.
  const Clock::time_point now = Clock::now(), answered = answered_;
  store_answers = round == Round::kAnswered || now - std::max(answered, resumed_) <= timeout_;
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
