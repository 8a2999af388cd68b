#pragma once
// Heartbeat: finds a rank of a group whose process stopped responding as a whole (SIGSTOP, a
// process hung or swapped out, a death the transport did not report) within a timeout, whether
// or not a collective is running, and names it. Shared by ProcessGroupGloo and ProcessGroupNCCL.
// (A rank whose process lives but never arrives, in an infinite loop or a deadlock of its
// training thread, still beats: DesyncMonitor::on_stall names it.)
//
// Each rank counts its heartbeats into the group's store (key "heartbeat/<rank>", one store
// add per interval, from a background thread: never on a collective's path) and reads its
// peers' counts in the same round. A peer whose count has not moved for `timeout`, as of the
// last round that read the store, is reported:
//   "rank 1 is unresponsive: no heartbeat for 3.2 s (heartbeat timeout 3 s); it is stopped,
//    hung or dead"
// A round that does not come back within `timeout` means the store itself stopped answering;
// its host (rank 0 for the TCPStore of init_process_group) is reported:
//   "rank 0 (the store's host) is unresponsive: the store has not answered for 3.1 s
//    (heartbeat timeout 3 s)"
// A second thread, which never touches the store, does the timing, so a store that hangs
// cannot hang the detection. on_failure is called once, on that thread, with the message and
// whether the store still answers (so that the caller does not wait on a hung one).
//
// Not reported: a store that fails (its host exited: the transport and the launcher report
// that death), a peer that destroyed its group (it writes a "left" mark), and the time this
// process itself was stopped or starved (a watcher that wakes late counts from its return).
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "distributed/process_group.h"
#include "distributed/store/store.h"

namespace brisk::dist {

class Heartbeat {
 public:
  using FailureHandler = std::function<void(const std::string& message, bool store_answers)>;

  // `store` is the group's own (a PrefixStore); timeout > 0.
  Heartbeat(std::shared_ptr<Store> store, int rank, int size, std::chrono::milliseconds timeout,
            FailureHandler on_failure);
  // Writes the "left" mark (waiting at most about a second for a store that hangs); never throws.
  ~Heartbeat();
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

  // How often a rank beats and reads its peers: a tenth of the timeout, within [10 ms, 1 s].
  static std::chrono::milliseconds interval_for(std::chrono::milliseconds timeout);

  // How long the store has not answered this rank's rounds, once that exceeds two intervals
  // (a failure path then need not wait on it); nothing while it answers.
  std::optional<std::chrono::steady_clock::duration> store_silence() const;

  struct State;  // shared with the store thread, which may outlive this object on a hung store

 private:
  void watch();

  std::shared_ptr<State> state_;
  const FailureHandler on_failure_;
  std::future<void> beater_done_;
  std::thread watcher_;
};

// The heartbeat timeout of a group: options.heartbeat_timeout, else the environment's
// BRISK_HEARTBEAT_TIMEOUT (seconds, e.g. "10" or "2.5"), else kDefaultHeartbeatTimeout. Zero
// turns heartbeats off. A malformed or negative value is an error naming its source.
std::chrono::milliseconds heartbeat_timeout(const ProcessGroupOptions& options);

}  // namespace brisk::dist
