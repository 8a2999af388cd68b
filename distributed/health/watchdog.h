#pragma once
// Watchdog: the one health thread of a process group, Gloo's and NCCL's alike, never on a
// collective's path. Every DesyncMonitor::kStepInterval (or heartbeat interval, if shorter) it
// beats (heartbeat.h), steps the desync monitor (desync_monitor.h; not while the heartbeat's
// last round found the store silent) and runs the group's `poll`. Both ask the store through
// clients whose calls give up after Heartbeat::call_timeout_for(heartbeat timeout), so a store
// that hangs delays neither the heartbeat's verdict nor the destructor by more than a second.
//
// It fails the group at most once, calling on_failure on its thread with failure()'s message,
// for a desync (with `verify`), a rank or store silent for the heartbeat timeout (unless 0), or
// a peer a collective waited for options.stall_timeout (when set). A wait of the heartbeat
// timeout only warns, on stderr:
//   "<where>: warning: waiting 2.0 s in all_reduce #12(...) for rank 1, which has not entered
//    it (...); the collective fails at its timeout (6000 ms)" (or "...; the group fails at its
//    stall timeout (60000 ms)")
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "distributed/health/desync_monitor.h"
#include "distributed/health/heartbeat.h"
#include "distributed/process_group.h"

namespace brisk::dist {

class Watchdog {
 public:
  using FailureHandler = std::function<void(const std::string& message)>;

  // `store` is the group's own (a PrefixStore); `where` starts every message
  // ("ProcessGroupGloo 'default' rank 0/2"); beat_timeout is heartbeat_timeout(options). `poll`
  // runs on the thread at every step.
  Watchdog(const Store& store, int rank, int size, const ProcessGroupOptions& options,
           std::chrono::milliseconds beat_timeout, bool verify, std::string where, FailureHandler on_failure,
           std::function<void(Watchdog&)> poll = {});
  // Stops the thread, then leaves the heartbeat's "left" mark; never throws.
  ~Watchdog();

  // Where this rank's collectives are recorded and finished.
  DesyncMonitor& monitor() { return monitor_; }

  // What a failure of the group says: "<where>: <cause>. <why collective #seq failed>\n<the
  // flight recorder>" (without the middle part for seq < 0), asking the store neither when
  // the heartbeat found it silent nor without store_answers. The group has failed then:
  // nothing more is reported (warnings included); beating and publishing go on, for the peers.
  std::string failure(const std::string& cause, int64_t seq = -1, bool store_answers = true);

 private:
  void report(const std::string& cause, bool store_answers);
  void loop();

  const std::string where_;
  const FailureHandler on_failure_;
  const std::function<void(Watchdog&)> poll_;
  const std::chrono::milliseconds step_interval_;
  DesyncMonitor monitor_;
  std::optional<Heartbeat> heartbeat_;  // unset when heartbeats are off
  std::atomic<bool> failed_{false};

  std::mutex mutex_;  // set stop_ under it, to wake the thread
  std::condition_variable wake_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace brisk::dist
