#include "distributed/health/heartbeat.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
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

// Written by the store thread, read by the watcher. The store thread holds its own reference:
// a round stuck on a hung store may outlive the Heartbeat.
struct Heartbeat::State {
  State(std::shared_ptr<Store> store_, int rank_, int size_, std::chrono::milliseconds timeout_)
      : store(std::move(store_)),
        rank(rank_),
        size(size_),
        timeout(timeout_),
        interval(interval_for(timeout_)),
        answered(Clock::now()),
        seen(static_cast<size_t>(size_), -1),
        changed(static_cast<size_t>(size_), answered),
        left(static_cast<size_t>(size_), false) {}

  // One round: this rank's beat, then every peer's count. Returns false once the store failed.
  bool round(int64_t delta) {
    // The counts are as of the round's start: a round this process was stopped in the middle
    // of must not date its reads after the stop.
    const Clock::time_point began = Clock::now();
    try {
      store->add(beat_key(rank), delta);
      std::vector<int64_t> counts(static_cast<size_t>(size), -1);
      for (int r = 0; r < size; ++r)
        if (r != rank) counts[r] = store->add(beat_key(r), 0);
      std::lock_guard<std::mutex> lock(mutex);
      answered = began;
      for (int r = 0; r < size; ++r) {
        if (r == rank || counts[r] == seen[r]) continue;
        seen[r] = counts[r];
        changed[r] = began;
        left[r] = counts[r] >= kLeft;
      }
      return true;
    } catch (const std::exception&) {
      // The store's host exited: its death is the transport's and the launcher's to report,
      // and a normal exit of rank 0 looks the same from here.
      std::lock_guard<std::mutex> lock(mutex);
      store_failed = true;
      return false;
    }
  }

  void beat_loop() {
    std::unique_lock<std::mutex> lock(mutex);
    while (!stop) {
      lock.unlock();
      bool alive = round(1);
      lock.lock();
      if (!alive) return;
      wake.wait_for(lock, interval, [&] { return stop; });
    }
    lock.unlock();
    round(kLeft);
  }

  const std::shared_ptr<Store> store;
  const int rank;
  const int size;
  const std::chrono::milliseconds timeout;
  const std::chrono::milliseconds interval;

  std::mutex mutex;
  std::condition_variable wake;
  bool stop = false;
  bool store_failed = false;
  Clock::time_point answered;              // the start of the last round that read the store
  std::vector<int64_t> seen;               // per rank: its last count read
  std::vector<Clock::time_point> changed;  // per rank: when that count was first read
  std::vector<bool> left;                  // per rank: it destroyed its group
};

std::chrono::milliseconds Heartbeat::interval_for(std::chrono::milliseconds timeout) {
  return std::clamp<std::chrono::milliseconds>(timeout / 10, std::chrono::milliseconds(10), std::chrono::seconds(1));
}

std::optional<Clock::duration> Heartbeat::store_silence() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  Clock::duration silence = Clock::now() - state_->answered;
  if (state_->store_failed || silence <= 2 * state_->interval) return std::nullopt;
  return silence;
}

Heartbeat::Heartbeat(std::shared_ptr<Store> store, int rank, int size, std::chrono::milliseconds timeout,
                     FailureHandler on_failure)
    : state_(std::make_shared<State>(std::move(store), rank, size, timeout)), on_failure_(std::move(on_failure)) {
  auto done = std::make_shared<std::promise<void>>();
  // Detached so that a round stuck on a hung store never holds up the destructor; it owns
  // what it uses, and `done` tells the destructor when it finished writing the "left" mark.
  std::thread([state = state_, done] {
    state->beat_loop();
    done->set_value();
  }).detach();
  beater_done_ = done->get_future();
  watcher_ = std::thread([this] { watch(); });
}

Heartbeat::~Heartbeat() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->stop = true;
  }
  state_->wake.notify_all();
  watcher_.join();
  beater_done_.wait_for(std::chrono::seconds(1));
}

void Heartbeat::watch() {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mutex);
  Clock::time_point woke = Clock::now();
  // When this process itself was stopped (SIGSTOP, then SIGCONT) or starved, nobody answered
  // it meanwhile: the store's silence is counted from its return, not from before.
  Clock::time_point resumed = woke;
  while (!s.stop) {
    s.wake.wait_for(lock, s.interval, [&] { return s.stop; });
    if (s.stop || s.store_failed) return;
    auto now = Clock::now();
    if (now - woke > s.timeout / 2) resumed = now;
    woke = now;
    std::string message;
    const bool store_answers = now - std::max(s.answered, resumed) <= s.timeout;
    if (!store_answers) {
      message = fmt::format(
          "rank 0 (the store's host) is unresponsive: the store has not answered for {:.1f} s (heartbeat timeout "
          "{:g} s)",
          seconds(now - s.answered), s.timeout.count() / 1000.0);
    }
    for (int r = 0; r < s.size && message.empty(); ++r) {
      if (r == s.rank || s.left[r] || s.answered - s.changed[r] <= s.timeout) continue;
      message = fmt::format("rank {} is unresponsive: no heartbeat for {:.1f} s (heartbeat timeout {:g} s); it is "
                            "stopped, hung or dead",
                            r, seconds(s.answered - s.changed[r]), s.timeout.count() / 1000.0);
    }
    if (message.empty()) continue;
    lock.unlock();
    on_failure_(message, store_answers);
    return;
  }
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
