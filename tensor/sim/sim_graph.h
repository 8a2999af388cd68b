#pragma once
// Graphs on the simulated device (tensor/graphs/graph.h): while a sim device is captured, its
// backend (sim_backend.h) records each kernel call with its operands' host aliases instead of
// running it; replay calls the recorded kernels again, in order, on the same memory, without
// dispatching an op. Work on another simulated device during a capture is refused: a graph
// captures one device.
//
// Memory: the recorded calls hold the storage of every tensor they touch, so nothing a graph
// reads or writes is handed out again while the graph lives, and it returns to the host's
// cache once the graph is reset and no tensor refers to it. A pool shared between graphs is
// therefore only bookkeeping here (Graph checks its device); the CUDA caching allocator keeps
// real private pools (cuda/caching_allocator.h).
#include <cstdint>
#include <functional>

#include "tensor/graphs/graph_backend.h"

namespace brisk::sim {

// Kernels of the simulated devices since the start or reset_kernel_counts(), process-wide:
// so a test sees that replay runs what capture recorded without dispatching a kernel.
struct KernelCounts {
  uint64_t run = 0;       // dispatched and run (eager work)
  uint64_t recorded = 0;  // dispatched during a capture and recorded
  uint64_t replayed = 0;  // run by replays
};
KernelCounts kernel_counts();
void reset_kernel_counts();

// Whether any simulated device is being captured (cheap: one atomic load).
bool capture_underway();
// Records `kernel`, the call of `op` on `device`, into the capture of `device` and returns
// true; returns false (the caller runs it) when no simulated device is being captured.
// Raises when another simulated device is.
bool record_kernel(Device device, const char* op, std::function<void()> kernel);
// Counts a kernel run eagerly.
void count_kernel_run();

class SimGraphBackend final : public graphs::GraphBackend {
 public:
  void capture_begin(Device device, graphs::MempoolId pool) override;
  std::unique_ptr<graphs::Executable> capture_end(Device device) override;
  void capture_abort(Device device) noexcept override;
  void release_pool(Device device, graphs::MempoolId pool) override;
};

}  // namespace brisk::sim
