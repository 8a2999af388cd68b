#pragma once
// How ProcessGroupNCCL makes and ends its communicator, free of CUDA and NCCL headers so that
// it is tested on any machine with scripted calls (tests/distributed/nccl/nccl_communicator_test).
//
// - Made when the group is made, not at its first operation (why: docs/distributed.md, "NCCL
//   communicators"). Making it waits for every rank of the group (ncclCommInitRank does).
// - Every rank first checks in through the group's store, so that a rank that never comes is
//   named after the timeout instead of leaving the others hanging in ncclCommInitRank; rank 0
//   then draws the unique id and hands it out through the store.
// - Aborted at most once, by whichever gives up on the group first (the watchdog at a failure,
//   the teardown): ncclCommAbort must neither run twice nor concurrently with itself.
#include <chrono>
#include <mutex>

#include "distributed/store/store.h"

namespace brisk::dist {

// The NCCL calls behind a Communicator (NcclCalls in process_group_nccl_impl.h; scripted in tests).
class CommunicatorCalls {
 public:
  virtual ~CommunicatorCalls() = default;
  // ncclGetUniqueId, on rank 0 only: the id every rank joins with, as bytes.
  virtual Bytes unique_id() = 0;
  // ncclCommInitRank: joins the communicator that `id` names as `rank` of `size`; returns
  // once every rank has joined it.
  virtual void init_rank(const Bytes& id, int size, int rank) = 0;
  // ncclCommAbort.
  virtual void abort() noexcept = 0;
};

class Communicator {
 public:
  // Makes the communicator through `calls` (which must outlive this object): waits at most
  // `timeout` for every rank to check in under `store` (the group's own; keys "init/<rank>"),
  // then throws naming the ranks missing; exchanges the id (key "unique_id") and joins.
  Communicator(Store& store, int rank, int size, std::chrono::milliseconds timeout, CommunicatorCalls& calls);
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  // Aborts the communicator unless that was done already. Any number of threads may call it
  // at once: one of them aborts, the others return once that abort has ended.
  void abort() noexcept;

 private:
  CommunicatorCalls& calls_;
  std::once_flag aborted_;
};

}  // namespace brisk::dist
