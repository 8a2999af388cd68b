#pragma once
// How ProcessGroupNCCL's destructor ends its communicator without ever hanging, free of CUDA
// and NCCL headers so that the decision is tested on any machine
// (tests/distributed/nccl/nccl_teardown_test).
//
// After a peer died mid-collective, the work queued on the group's stream never finishes, so
// cudaStreamSynchronize or ncclCommDestroy would wait forever. Instead the destructor polls the
// queue: when it drained, the communicator is destroyed normally; when NCCL reports an
// asynchronous error, the stream reports a CUDA error, or `timeout` passes first, it is
// aborted (ncclCommAbort), which never waits for peers.
#include <chrono>
#include <functional>

namespace brisk::dist {

// What one poll of the queued work says (cudaStreamQuery and ncclCommGetAsyncError).
enum class QueuedWork { kFinished, kRunning, kFailed };

// Polls `poll_state` every `interval` until it answers kFinished (true: destroy the
// communicator) or kFailed, or `timeout` passes (false: abort it). Polls at least once.
bool drain_before_destroy(const std::function<QueuedWork()>& poll_state, std::chrono::milliseconds timeout,
                          std::chrono::milliseconds interval);

}  // namespace brisk::dist
