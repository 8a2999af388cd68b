#pragma once
// dist::ProcessGroupNCCL: the collectives of ProcessGroup on CUDA tensors over NCCL (as
// c10d::ProcessGroupNCCL). Built only with CUDA (//distributed/nccl); it registers itself as
// backend "nccl", so init_process_group("nccl") finds it when that target is linked.
//
//   cuda::set_device(local_rank);                    // one GPU per process
//   dist::init_process_group("nccl");
//   dist::all_reduce(grad);                          // grad on cuda:local_rank
//
// - Every tensor must be on the group's device() (ProcessGroupOptions::device, else the
//   current CUDA device when the group is created), where the constructor makes the
//   communicator (distributed/nccl/nccl_communicator.h). (NCCL's own rule remains: collectives
//   of several communicators on one GPU that cannot run at once must be queued in one order on
//   every rank, or their kernels may wait for each other.)
// - Collectives run on the group's own stream. Each waits (with an event, not the host) for
//   the work queued so far on the caller's current stream, and the tensors are marked as used
//   on the group's stream (cuda::record_stream), so the caching allocator does not hand their
//   memory out before the collective is done.
// - Work::wait() makes the caller's current stream wait for the collective and returns at
//   once, as PyTorch does; barrier()'s wait() blocks the host until it is done.
//   is_completed() asks the collective's end event.
// - gather, scatter, all_to_all, all_gather and reduce_scatter on lists of tensors are
//   grouped NCCL calls (ncclSend/ncclRecv, ncclBroadcast, ncclReduce between
//   ncclGroupStart/End), so the tensors need not be one buffer. send/recv ignore the tag
//   (NCCL has none): pairs match in call order.
// - ReduceOp::AVG is ncclAvg: for integer dtypes NCCL's own rounding applies.
// - Dtypes: float32, float64, float16, bfloat16, int64, int32, uint8 (bool as uint8, for
//   broadcast and the gathers).
//
// Failures (ProcessGroupOptions; how each is found: docs/distributed.md): a mismatch (checked
// whatever check_desync says), a collective still running after `timeout`, an error NCCL
// reports asynchronously (a peer died) or a rank silent for heartbeat_timeout makes the group
// print what happened (the op, its number, each rank's call and the odd rank, or the ranks that
// never entered it), abort the communicator, and end the process with status 1: a rank stuck in
// a collective on the GPU cannot be woken otherwise.
#include <memory>
#include <string>
#include <vector>

#include "distributed/process_group.h"
#include "distributed/store/store.h"

namespace brisk::dist {

class ProcessGroupNCCL : public ProcessGroup {
 public:
  // `store` should be private to this group (a PrefixStore). Waits for every rank of the group
  // to make it (the communicator is created here); throws naming the ranks missing after
  // options.timeout.
  ProcessGroupNCCL(std::shared_ptr<Store> store, int rank, int size, ProcessGroupOptions options = {});
  // Waits for the queued collectives at most `timeout` (not at all after an asynchronous NCCL
  // error), then destroys the communicator, or aborts it when they did not finish. Never
  // hangs, never throws. The group's stream outlives it (tensors that recorded it may be
  // freed later).
  ~ProcessGroupNCCL() override;

  std::string backend_name() const override { return "nccl"; }
  const ProcessGroupOptions& options() const;

  BRISK_PROCESS_GROUP_OVERRIDES

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace brisk::dist
