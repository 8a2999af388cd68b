#pragma once
// The state behind ProcessGroupGloo: the Gloo context, the worker threads, the watchdog, the
// failure that breaks the group, and how one collective or send/recv is queued and run.
// Internal to //distributed/gloo; the operations themselves are in process_group_gloo.cc.
#include <gloo/rendezvous/context.h>
#include <gloo/transport/device.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "distributed/gloo/gloo_work.h"
#include "distributed/gloo/host_staging.h"
#include "distributed/gloo/process_group_gloo.h"
#include "distributed/health/collective_signature.h"
#include "distributed/health/watchdog.h"

namespace brisk::dist {

struct ProcessGroupGloo::Impl {
  using Clock = std::chrono::steady_clock;

  // Connects the full mesh of ranks on the interface of `host` (throws naming it after the
  // timeout), then starts the watchdog and the workers.
  Impl(std::shared_ptr<Store> store, int rank, int size, ProcessGroupOptions options, const std::string& host,
       std::string name);

  // "ProcessGroupGloo '<name>' rank r/size", the start of every failure message.
  std::string where() const;

  // Queues `body` (the transport part of one collective, given its Gloo tag) as collective
  // number next_seq; then `staging` copies its results back to the device (null: nothing
  // staged). Once the group is broken, the Work fails at once with the first failure.
  std::shared_ptr<Work> collective(CollectiveSignature sig, std::shared_ptr<HostStaging> staging,
                                   std::function<void(uint32_t tag)> body);
  // Point-to-point: posted in order on the worker, waited for on p2p_waiter, so posting never
  // blocks the operations queued after it. `tensor` is host memory (staged by `staging`, which
  // copies a received tensor back).
  std::shared_ptr<Work> p2p(bool is_send, Tensor tensor, std::shared_ptr<HostStaging> staging, int peer, int tag);

  // Gloo's options for one collective (gloo::AllreduceOptions, ...): on this group's context,
  // with the collective's tag and the group's timeout.
  template <typename GlooOptions>
  GlooOptions options_for(uint32_t tag) const {
    GlooOptions o(context);
    o.setTag(tag);
    o.setTimeout(options.timeout);
    return o;
  }

  std::shared_ptr<Store> store;
  int rank;
  int size;
  ProcessGroupOptions options;
  std::string name;
  std::shared_ptr<gloo::transport::Device> device;
  std::shared_ptr<gloo::rendezvous::Context> context;

 private:
  std::shared_ptr<WorkGloo> new_work();
  // The group is unusable from now on: every unfinished Work fails with `message` at once
  // (its operation, possibly stuck in Gloo until the timeout, can no longer succeed).
  void break_group(const std::string& message);
  std::string broken_reason();
  // "<where>: <op> not run: an earlier collective on this group failed: <earlier>".
  std::string not_run(const std::string& op, const std::string& earlier) const;
  // Once the group is broken: a Work failed at once with its first failure; else null.
  std::shared_ptr<Work> refused_if_broken(const std::string& op);
  void run(const CollectiveSignature& sig, const std::function<void(uint32_t)>& body);
  [[noreturn]] void fail(const CollectiveSignature& sig, Clock::time_point start, const std::string& cause);

  std::mutex mutex_;  // next_seq_, broken_, unfinished_
  int64_t next_seq_ = 0;
  std::string broken_;  // the first failure
  std::vector<std::weak_ptr<WorkGloo>> unfinished_;

  // Destroyed after the workers (declared before them), before the state its handler uses.
  std::unique_ptr<Watchdog> watchdog_;
  // Destroyed first (declared last): they run what is queued, and their threads finish before
  // the context goes.
  std::unique_ptr<GlooWorker> p2p_waiter_;
  std::unique_ptr<GlooWorker> worker_;
};

}  // namespace brisk::dist
