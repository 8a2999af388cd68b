#pragma once
// An in-memory ProcessGroup whose ranks are threads of one process, so that
// DistributedDataParallel's logic can be tested without sockets or a launcher.
//
//   auto world = std::make_shared<ThreadWorld>(2);
//   run_ranks(2, [&](int rank) {
//     auto group = std::make_shared<ThreadProcessGroup>(world, rank);
//     ...
//   });
//
// Collectives are asynchronous as in a real backend: each rank deposits its tensors and
// gets a Work; the last rank to arrive computes the result (in rank order, so every rank
// sees identical bytes) and completes every rank's Work. Ranks that call different
// collectives at the same sequence number, or with different sizes, fail with an error
// naming both; a rank that does not arrive within the timeout fails the others' wait().
// Supported: broadcast, all_reduce, all_gather, gather, reduce_scatter, barrier, and send/recv:
// messages from one rank to another with one tag are matched in order; a send completes at
// once (the message is buffered), a recv when its message has come (its wait() fails at the
// timeout naming the rank that sent nothing), with an error when sizes or dtypes differ.
//
// The group has a device (default the CPU; e.g. sim:rank, one simulated device per rank) and
// enforces NCCL's contract through the backends' own checks (collective_checks.h): every
// tensor on device(), contiguous. Results are computed on host copies and copied back to
// each rank's device, as Gloo stages device tensors.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "distributed/process_group.h"
#include "tests/thread_checks.h"

namespace brisk::dist::testing {

class ThreadWorld {
 public:
  explicit ThreadWorld(int size, std::chrono::milliseconds timeout = std::chrono::seconds(10))
      : size_(size), timeout_(timeout) {}
  int size() const { return size_; }

  struct Call {
    std::string op;
    int64_t numel = 0;
    std::vector<Tensor> tensors;  // the rank's tensors (input first, outputs after)
  };
  struct Slot {
    std::vector<Call> calls;
    int arrived = 0;
    bool done = false;
    std::string error;
  };

  // Deposits rank's call for collective number `seq`; runs `compute` when it is the last.
  std::shared_ptr<Slot> arrive(int64_t seq, int rank, Call call,
                               const std::function<void(std::vector<Call>&)>& compute);
  // Waits for the slot to complete; throws its error or a timeout naming the absent ranks.
  void wait(const std::shared_ptr<Slot>& slot, int64_t seq, const std::string& op);
  bool completed(const std::shared_ptr<Slot>& slot);

  // A receive: done once a message has been copied into `target` (or failed to).
  struct Delivery {
    Tensor target;
    bool done = false;
    std::string error;
  };
  // Sends a copy of `tensor` from src to dst: into dst's oldest waiting receive of (src, tag),
  // else queued for the next one.
  void send(int src, int dst, int tag, const Tensor& tensor);
  // dst's receive from src into `target`: from the oldest queued message of (src, tag), else
  // done by the next send.
  std::shared_ptr<Delivery> recv(int src, int dst, int tag, Tensor target);
  // Waits for a receive; throws its error or a timeout naming the rank that sent nothing.
  void wait(const std::shared_ptr<Delivery>& delivery, int src, int dst, int tag);
  bool completed(const std::shared_ptr<Delivery>& delivery);

 private:
  struct Channel {
    std::deque<Tensor> messages;                    // sent, not yet received (host copies)
    std::deque<std::shared_ptr<Delivery>> waiting;  // receives posted before their message
  };
  // Copies `message` into `delivery`'s target and completes it; with mutex_ held.
  void deliver(Delivery& delivery, const Tensor& message, int src, int dst, int tag);

  int size_;
  std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<int64_t, std::shared_ptr<Slot>> slots_;
  std::map<std::tuple<int, int, int>, Channel> channels_;  // (src, dst, tag)
};

class ThreadProcessGroup final : public ProcessGroup {
 public:
  ThreadProcessGroup(std::shared_ptr<ThreadWorld> world, int rank, Device device = kCPU)
      : ProcessGroup(rank, world->size(), device), world_(std::move(world)) {}

  std::string backend_name() const override { return "threads"; }
  std::shared_ptr<Work> broadcast(Tensor& tensor, int root) override;
  std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op = ReduceOp::SUM) override;
  std::shared_ptr<Work> all_gather(std::vector<Tensor>& outputs, const Tensor& input) override;
  std::shared_ptr<Work> gather(std::vector<Tensor>& outputs, const Tensor& input, int root) override;
  std::shared_ptr<Work> reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs,
                                       ReduceOp op = ReduceOp::SUM) override;
  std::shared_ptr<Work> barrier() override;
  std::shared_ptr<Work> send(const Tensor& tensor, int dst, int tag = 0) override;
  std::shared_ptr<Work> recv(Tensor& tensor, int src, int tag = 0) override;

  // Collectives issued so far, by name ("all_reduce"): what tests assert on.
  const std::vector<std::string>& history() const { return history_; }

 private:
  std::shared_ptr<Work> start(ThreadWorld::Call call,
                              const std::function<void(std::vector<ThreadWorld::Call>&)>& compute);

  std::shared_ptr<ThreadWorld> world_;
  int64_t seq_ = 0;
  std::vector<std::string> history_;
};

// Runs fn(rank) on `world` threads through brisk::testing::run_threads: fn checks with
// THREAD_CHECK & co. (tests/thread_checks.h), which the calling thread reports after the
// join, and the first exception that escaped fn (by rank) is rethrown.
void run_ranks(int world, const std::function<void(int rank)>& fn);

}  // namespace brisk::dist::testing
