#pragma once
// Heartbeat: finds a rank of a group whose process stopped responding as a whole (SIGSTOP, a
// process hung or swapped out, a death the transport did not report) within a timeout, whether
// or not a collective is running, and names it. Part of a group's Watchdog (watchdog.h); how it
// works and what it costs: docs/distributed.md, "Heartbeats, stalls and the flight recorder".
//
// Each beat() round adds this rank's beat to the group's store (key "heartbeat/<rank>") and
// reads its peers'. on_failure is called once, by beat(), with the message and whether the
// store still answers (so that the caller does not wait on a hung one); the rank keeps beating:
//   "rank 1 is unresponsive: no heartbeat for 3.2 s (heartbeat timeout 3 s); it is stopped,
//    hung or dead"
//   "rank 0 (the store's host) is unresponsive: the store has not answered for 3.1 s
//    (heartbeat timeout 3 s)"
// Not reported: a store that fails (its host exited), a peer that destroyed its Heartbeat, and
// the time this process itself was stopped or starved. No store call holds up beat() or the
// destructor for longer than call_timeout_for(timeout).
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "distributed/process_group.h"
#include "distributed/store/store.h"

namespace brisk::dist {

class Heartbeat {
 public:
  using FailureHandler = std::function<void(const std::string& message, bool store_answers)>;

  // `store` is the group's own (a PrefixStore); timeout > 0.
  Heartbeat(const Store& store, int rank, int size, std::chrono::milliseconds timeout, FailureHandler on_failure);
  // Writes the "left" mark (waiting call_timeout_for(timeout) at most); never throws.
  ~Heartbeat();

  // How often a rank beats and reads its peers: a tenth of the timeout, within [10 ms, 1 s].
  static std::chrono::milliseconds interval_for(std::chrono::milliseconds timeout);
  // How long one store call may take: half the timeout, at most (and for 0, off) 500 ms.
  static std::chrono::milliseconds call_timeout_for(std::chrono::milliseconds timeout);

  // One round, when an interval has passed since the last one began (else nothing); to be
  // called at least every interval, from one thread. Whether the store answered the last round.
  bool beat();

  // How long the store has not answered this rank's rounds, once that exceeds two intervals
  // (a failure path then need not wait on it); nothing while it answers. Any thread.
  std::optional<std::chrono::steady_clock::duration> store_silence() const;

 private:
  enum class Round { kAnswered, kSilent, kFailed };
  // This rank's beat, then every peer's count.
  Round round();
  // What to report after a round, if anything.
  std::string failure(Round round, bool& store_answers) const;

  const std::shared_ptr<Store> store_;  // with the per-call deadline
  const int rank_;
  const int size_;
  const std::chrono::milliseconds timeout_;
  const std::chrono::milliseconds interval_;
  const std::chrono::milliseconds call_timeout_;
  const FailureHandler on_failure_;

  mutable std::mutex mutex_;  // store_failed_, answered_ (written by beat() only)
  bool store_failed_ = false;
  std::chrono::steady_clock::time_point answered_;  // the start of the last round the store answered
  // Read and written by beat() only: when the last round began and how it ended, when the last
  // beat() returned, when this process last came back from a stop or a starvation (nobody
  // could answer it meanwhile), whether it reported; per rank, its last count read, when that
  // count was first read, and whether it left.
  std::chrono::steady_clock::time_point began_;
  Round last_ = Round::kAnswered;
  std::chrono::steady_clock::time_point returned_;
  std::chrono::steady_clock::time_point resumed_;
  bool reported_ = false;
  std::vector<int64_t> seen_;
  std::vector<std::chrono::steady_clock::time_point> changed_;
  std::vector<bool> left_;
};

// The heartbeat timeout of a group: options.heartbeat_timeout, else the environment's
// BRISK_HEARTBEAT_TIMEOUT (seconds, e.g. "10" or "2.5"), else kDefaultHeartbeatTimeout. Zero
// turns heartbeats off. A malformed or negative value is an error naming its source.
std::chrono::milliseconds heartbeat_timeout(const ProcessGroupOptions& options);

}  // namespace brisk::dist
