#pragma once
// The state behind ProcessGroupNCCL: the communicator (made with the group, through the store:
// nccl_communicator.h) and its stream, the watchdog (which also polls the queued work) and the
// teardown.
// Internal to //distributed/nccl; the operations themselves are in process_group_nccl.cc.
#include <cuda_runtime.h>
#include <nccl.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "distributed/health/collective_signature.h"
#include "distributed/health/watchdog.h"
#include "distributed/nccl/nccl_communicator.h"
#include "distributed/nccl/nccl_work.h"
#include "distributed/nccl/process_group_nccl.h"

namespace brisk::dist {

// For a dtype the collective checks accepted (bool travels as uint8).
ncclDataType_t nccl_dtype(DType dtype);
ncclRedOp_t nccl_op(ReduceOp op);

// Communicator's calls on a CUDA device, and the ncclComm_t they make.
class NcclCalls final : public CommunicatorCalls {
 public:
  explicit NcclCalls(int device) : device_(device) {}
  Bytes unique_id() override;
  void init_rank(const Bytes& id, int size, int rank) override;
  void abort() noexcept override;
  // ncclCommDestroy; false when NCCL refused.
  bool destroy() noexcept;

  // Null until init_rank returned.
  ncclComm_t comm() const { return comm_; }

 private:
  int device_;
  ncclComm_t comm_ = nullptr;
};

struct ProcessGroupNCCL::Impl {
  // Queues the NCCL calls of one operation on the group's stream.
  using Launch = std::function<void(ncclComm_t comm, cudaStream_t stream)>;

  // `device`: the group's, a CUDA device; the communicator and the stream live on it. Makes
  // the communicator, so it waits for every rank of the group (at most options.timeout).
  Impl(std::shared_ptr<Store> store, int rank, int size, ProcessGroupOptions options, Device device);
  // Teardown never hangs and never throws: it polls the queued work for at most `timeout`
  // (stopping at an asynchronous NCCL error), then destroys the communicator, or aborts it
  // (ncclCommAbort) when the work did not finish.
  ~Impl();

  // Runs one collective on `tensors` (checked by OperationChecks: on the group's device):
  // numbers it (sig.seq) and records its signature for the desync monitor (memory only), orders
  // the group's stream after the caller's, queues `launch` and returns its Work. `blocking`: wait() blocks the host too
  // (barrier).
  std::shared_ptr<Work> collective(CollectiveSignature sig, const std::vector<Tensor>& tensors, bool blocking,
                                   const Launch& launch);
  // As collective() for send/recv, which are not compared across ranks; `call` describes it.
  std::shared_ptr<Work> p2p(const std::string& call, const std::vector<Tensor>& tensors, const Launch& launch);

  std::shared_ptr<Store> store;
  int rank;
  int size;
  ProcessGroupOptions options;

 private:
  std::shared_ptr<Work> enqueue(const std::string& label, int64_t seq, const std::vector<Tensor>& tensors,
                                bool blocking, const Launch& launch);
  // On the watchdog's thread: marks the finished work and fails at a CUDA error, an
  // asynchronous NCCL error or a collective still running after the timeout.
  void poll(Watchdog& watchdog);
  // Prints `message` (Watchdog::failure's), aborts the communicator and ends the process with
  // status 1: a rank stuck in a collective on the GPU cannot be woken otherwise. Called on the
  // watchdog's thread only, so the communicator is never polled while it is aborted.
  [[noreturn]] void abort_and_exit(const std::string& message);

  const int device_;  // the CUDA ordinal of the group's device

  NcclCalls nccl_;
  std::unique_ptr<Communicator> communicator_;  // through nccl_, made by the constructor
  // From a pool that is never destroyed (process_group_nccl_impl.cc): tensors record it with the caching
  // allocator, and may be freed after the group is gone.
  cudaStream_t stream_ = nullptr;

  // Numbers the operations and queues them in that order; only the callers take it.
  std::mutex launch_mutex_;
  int64_t seq_ = 0;      // collectives queued (the next one's number)
  int64_t p2p_seq_ = 0;  // sends and recvs queued

  std::mutex mutex_;  // pending_; never held while waiting on the store or the GPU
  std::vector<std::shared_ptr<WorkNCCL>> pending_;

  std::unique_ptr<Watchdog> watchdog_;
};

}  // namespace brisk::dist
