#pragma once
// The state behind ProcessGroupNCCL: the communicator and its stream, the bootstrap through
// the store, the desync check, and the watchdog. Internal to //distributed:nccl; the
// operations themselves are in process_group_nccl.cc.
#include <nccl.h>

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cuda/stream.h"
#include "distributed/nccl_work.h"
#include "distributed/process_group_nccl.h"

namespace brisk::dist {

// For a dtype CallChecks accepted (bool travels as uint8).
ncclDataType_t nccl_dtype(DType dtype);
ncclRedOp_t nccl_op(ReduceOp op);

struct ProcessGroupNCCL::Impl {
  // Queues the NCCL calls of one operation on the group's stream.
  using Launch = std::function<void(ncclComm_t comm, cudaStream_t stream)>;

  // `device`: the group's, a CUDA device; the communicator and the stream live on it.
  Impl(std::shared_ptr<Store> store, int rank, int size, ProcessGroupOptions options, Device device);
  ~Impl();

  // Runs one operation on `tensors` (checked by CallChecks: on the group's device): creates
  // the communicator at the first call, compares `call` across ranks (collectives, when
  // check_desync), orders the group's stream after the caller's, queues `launch` and returns
  // its Work. `call` describes it, e.g. "all_reduce(numel 10, float32, SUM)".
  std::shared_ptr<Work> run(const std::string& op, const std::string& call, const std::vector<Tensor>& tensors,
                            bool collective, bool blocking, const Launch& launch);

  std::shared_ptr<Store> store;
  int rank;
  int size;
  ProcessGroupOptions options;

 private:
  void create_communicator();
  // Every rank writes `key_prefix`/<rank>; throws naming the ranks missing after the timeout.
  void wait_for_all(const std::string& key_prefix, const std::string& what);
  void check_desync(int64_t seq, const std::string& call);
  void watch();
  [[noreturn]] void fail(const std::string& reason, int64_t seq);

  const int device_;  // the CUDA ordinal of the group's device
  std::mutex mutex_;  // everything below
  ncclComm_t comm_ = nullptr;
  std::unique_ptr<cuda::Stream> stream_;
  int64_t seq_ = 0;      // collectives queued
  int64_t p2p_seq_ = 0;  // sends and recvs queued
  std::string broken_;   // set by an error that leaves the ranks out of step
  std::vector<std::shared_ptr<WorkNCCL>> pending_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread watchdog_;
};

}  // namespace brisk::dist
