#pragma once
// QueuedGroup: the half of a process group that its transport does not decide, shared by the
// groups over blocking host transports (ProcessGroupGloo, ProcessGroupMPI). Collectives run one
// at a time, in call order, on one worker thread; point-to-point operations are posted in
// order on that thread and waited for on others: one for sends, and one per stream of receives
// (the peer and tag they receive from), so a send never holds up the operations queued after it
// and a receive completes once its message has come, whatever sends of this rank still wait for
// their receiver and whatever receives of other streams were posted before it. A pipeline stage
// depends on both: it reads a message's shape header before receiving its tensors, and keeps
// the next receive of each of its streams posted ahead (distributed/pipeline/pipeline_stage.h),
// which one waiter for all receives would complete in posting order, not arrival order. The watchdog
// (distributed/health/watchdog.h) beats, checks for desyncs and stalls. The first failure
// breaks the group: the failing collective's error names the op, its number, the time it took
// and why (then the flight recorder); every unfinished and later Work fails at once with it,
// and wait() throws it as a brisk::Error.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "distributed/health/collective_signature.h"
#include "distributed/health/watchdog.h"
#include "distributed/process_group.h"
#include "distributed/queued/queued_work.h"
#include "distributed/queued/transport_buffers.h"
#include "distributed/store/store.h"

namespace brisk::dist {

class QueuedGroup {
 public:
  // `backend` ("gloo", "mpi") and the group's `name` ("default") name the profiler's collective
  // events; `where` ("ProcessGroupGloo 'default' rank 0/2") starts every message. `store` is the group's own (a
  // PrefixStore); beat_timeout is heartbeat_timeout(options). Starts the watchdog and the
  // threads: construct it once the transport is connected.
  QueuedGroup(const char* backend, std::string name, std::string where, std::shared_ptr<Store> store, int rank,
              int size, const ProcessGroupOptions& options, std::chrono::milliseconds beat_timeout);
  // Runs what is queued first.
  ~QueuedGroup();
  QueuedGroup(const QueuedGroup&) = delete;
  QueuedGroup& operator=(const QueuedGroup&) = delete;

  const std::string& where() const { return where_; }

  // Queues `body` (the transport part of one collective, given a tag that differs between
  // collectives that differ: the signature's fingerprint) as the next collective; then `buffers`
  // puts its results in place (copy_back(); null: no tensors). Once the group is broken, the
  // Work fails at once with the first failure.
  std::shared_ptr<Work> collective(CollectiveSignature sig, std::shared_ptr<TransportBuffers> buffers,
                                   std::function<void(uint32_t tag)> body);
  // Point-to-point `op` ("send to rank 1 (tag 0)") with `peer` on `tag`: `post` runs on the
  // worker in call order and returns the wait for its completion, which runs on the sends'
  // waiter or on the waiter of the receives from (peer, tag); then `buffers` puts a received
  // tensor in place.
  std::shared_ptr<Work> p2p(bool is_send, int peer, int tag, const std::string& op,
                            std::shared_ptr<TransportBuffers> buffers, std::function<std::function<void()>()> post);

 private:
  using Clock = std::chrono::steady_clock;

  std::shared_ptr<QueuedWork> new_work();
  // The group is unusable from now on: every unfinished Work fails with `message` at once
  // (its operation, possibly stuck in the transport until the timeout, can no longer succeed).
  void break_group(const std::string& message);
  std::string broken_reason();
  // "<where>: <op> not run: an earlier collective on this group failed: <earlier>".
  std::string not_run(const std::string& op, const std::string& earlier) const;
  // Once the group is broken: a Work failed at once with its first failure; else null.
  std::shared_ptr<Work> refused_if_broken(const std::string& op);
  void run(const CollectiveSignature& sig, const std::function<void(uint32_t)>& body);
  [[noreturn]] void fail(const CollectiveSignature& sig, Clock::time_point start, const std::string& cause);

  const char* backend_;
  const std::string name_;
  const std::string where_;
  const std::shared_ptr<Store> store_;
  const int size_;
  const std::chrono::milliseconds timeout_;

  std::mutex mutex_;  // next_seq_, broken_, unfinished_
  int64_t next_seq_ = 0;
  std::string broken_;  // the first failure
  std::vector<std::weak_ptr<QueuedWork>> unfinished_;

  // Destroyed after the queues (declared before them), before the state its handler uses.
  std::unique_ptr<Watchdog> watchdog_;
  // Destroyed first (declared last): they run what is queued.
  std::unique_ptr<WorkQueue> send_waiter_;
  // (peer, tag) -> the waiter of its receives, made at the stream's first receive; used on the
  // worker's thread only (and destroyed after it).
  std::map<std::pair<int, int>, std::unique_ptr<WorkQueue>> recv_waiters_;
  std::unique_ptr<WorkQueue> worker_;
};

}  // namespace brisk::dist
