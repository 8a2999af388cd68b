#pragma once
// dist::ProcessGroup: the collectives among a fixed set of ranks, as c10d::ProcessGroup.
// Implementations: ProcessGroupGloo (tensors of any device, through host memory) and
// ProcessGroupNCCL (CUDA tensors).
//
// Every operation is asynchronous: it enqueues the collective and returns a Work; tensors
// passed in must stay alive and unmodified until the Work completes. Every tensor argument must
// be defined, contiguous and on device() (NCCL's contract, enforced by every backend at the
// call: distributed/collective_checks.h). Collectives act in place; every rank must call the
// same collectives in the same order with tensors of the same size and dtype. A mismatch or a
// rank that does not arrive within `timeout` fails the Work with an error naming the operation,
// its sequence number and the ranks concerned (each rank's call and the odd rank, or the ranks
// that never entered it).
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "distributed/reduce_op.h"
#include "distributed/work.h"
#include "tensor/tensor.h"

namespace brisk::dist {

struct ProcessGroupOptions {
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  // Compare each collective's (op, sequence number, numel, dtype, root, reduce op) across
  // ranks in the background (never on the collective's path) and fail it promptly on a
  // mismatch, naming the odd rank. Off, a mismatch still fails (Gloo: at the timeout) with the
  // same diagnosis; NCCL compares always (distributed/health/desync_monitor.h).
  bool check_desync = true;
  // The device whose tensors the group's operations take: every tensor argument must be on
  // it, as NCCL requires. Unset: the CPU for Gloo; for NCCL the current CUDA device when the
  // group is created. Code that issues its own collectives (DDP, ZeRO, metrics) creates its
  // tensors on ProcessGroup::device().
  std::optional<Device> device;
  // A rank whose heartbeats stop (stopped, hung, dead) for this long fails the group on the
  // others, naming it, collective running or not (distributed/health/heartbeat.h). Unset: the
  // environment's BRISK_HEARTBEAT_TIMEOUT (seconds), else kDefaultHeartbeatTimeout; zero: off.
  std::optional<std::chrono::milliseconds> heartbeat_timeout;
  // A rank that has waited this long in a collective that a live peer has not entered (an
  // infinite loop, a deadlock or long work of its own) fails the group, naming that peer.
  // Unset: it is only named, in a warning at the heartbeat timeout, and the collective fails at
  // `timeout`; set it where ranks work in lock step, as a training loop does.
  std::optional<std::chrono::milliseconds> stall_timeout;
  // init_process_group only: how long its ranks wait for each other to join before failing with
  // the missing ranks, and how often rank 0 says whom it waits for meanwhile. Unset: the
  // environment's BRISK_RENDEZVOUS_TIMEOUT / BRISK_RENDEZVOUS_PROGRESS_INTERVAL (seconds), else
  // 300 s / 30 s (distributed/rendezvous.h). Separate from `timeout`, the collectives'.
  std::optional<std::chrono::milliseconds> rendezvous_timeout;
  std::optional<std::chrono::milliseconds> rendezvous_progress_interval;
  // MPI only, for a group on an accelerator: true passes device pointers to MPI (a CUDA-aware
  // library), false stages the tensors through host memory. Unset: the environment's
  // BRISK_MPI_CUDA_DIRECT (1, 0 or auto), else auto: direct on CUDA when the library reports
  // CUDA awareness, staged otherwise (distributed/mpi/transport_mode.h).
  std::optional<bool> mpi_cuda_direct;
};

// In a backend's class body: its overrides of every operation of ProcessGroup (below).
#define BRISK_PROCESS_GROUP_OVERRIDES                                                                                  \
  std::shared_ptr<Work> broadcast(Tensor& tensor, int root) override;                                                  \
  std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op = ReduceOp::SUM) override;                              \
  std::shared_ptr<Work> reduce(Tensor& tensor, int root, ReduceOp op = ReduceOp::SUM) override;                        \
  std::shared_ptr<Work> all_gather(std::vector<Tensor>& outputs, const Tensor& input) override;                        \
  std::shared_ptr<Work> gather(std::vector<Tensor>& outputs, const Tensor& input, int root) override;                  \
  std::shared_ptr<Work> scatter(Tensor& output, const std::vector<Tensor>& inputs, int root) override;                 \
  std::shared_ptr<Work> reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op = ReduceOp::SUM) \
      override;                                                                                                        \
  std::shared_ptr<Work> all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs) override;          \
  std::shared_ptr<Work> barrier() override;                                                                            \
  std::shared_ptr<Work> send(const Tensor& tensor, int dst, int tag = 0) override;                                     \
  std::shared_ptr<Work> recv(Tensor& tensor, int src, int tag = 0) override;

constexpr std::chrono::milliseconds kDefaultHeartbeatTimeout{std::chrono::seconds(30)};

class ProcessGroup {
 public:
  ProcessGroup(int rank, int size, Device device) : rank_(rank), size_(size), device_(device) {}
  virtual ~ProcessGroup() = default;
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // The device of every tensor the operations take (ProcessGroupOptions::device).
  Device device() const { return device_; }
  virtual std::string backend_name() const = 0;

  // Each operation a backend does not override throws "<op>: not implemented by backend
  // '<backend_name()>'", so a test's fake implements only what it uses.
  // tensor on `root` is copied into tensor on every rank.
  virtual std::shared_ptr<Work> broadcast(Tensor& tensor, int root);
  virtual std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op = ReduceOp::SUM);
  // The reduction lands in tensor on `root`; other ranks' tensors are unspecified after.
  virtual std::shared_ptr<Work> reduce(Tensor& tensor, int root, ReduceOp op = ReduceOp::SUM);
  // outputs[r] receives rank r's input; outputs has size() tensors shaped like input.
  virtual std::shared_ptr<Work> all_gather(std::vector<Tensor>& outputs, const Tensor& input);
  // As all_gather, into outputs on `root` only (outputs is ignored elsewhere).
  virtual std::shared_ptr<Work> gather(std::vector<Tensor>& outputs, const Tensor& input, int root);
  // Rank r receives inputs[r] from `root` (inputs is ignored elsewhere).
  virtual std::shared_ptr<Work> scatter(Tensor& output, const std::vector<Tensor>& inputs, int root);
  // output = reduction over ranks of their inputs[rank()].
  virtual std::shared_ptr<Work> reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs,
                                               ReduceOp op = ReduceOp::SUM);
  // outputs[r] receives rank r's inputs[rank()].
  virtual std::shared_ptr<Work> all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs);
  virtual std::shared_ptr<Work> barrier();
  virtual std::shared_ptr<Work> send(const Tensor& tensor, int dst, int tag = 0);
  virtual std::shared_ptr<Work> recv(Tensor& tensor, int src, int tag = 0);

 protected:
  [[noreturn]] void not_implemented(const char* op) const;

 private:
  int rank_;
  int size_;
  Device device_;
};

}  // namespace brisk::dist
