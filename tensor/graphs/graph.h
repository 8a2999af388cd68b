#pragma once
// Graphs of device work, in the spirit of PyTorch's torch.cuda.CUDAGraph and torch.cuda.graph:
// the kernels a stretch of code queues on one device (a whole training step, say) are
// captured once and replayed with one call, without the host dispatching an op again.
// Replay runs the same kernels on the same memory: the inputs are tensors that stay put
// (copy new data into them before each replay), the outputs are the tensors the captured code
// made. The recipe, what is refused during capture and why: docs/cuda_graphs.md.
//
//   Graph graph(device);
//   {
//     GraphCapture capture(graph);  // capture_begin() ... capture_end()
//     loss = step(static_input);
//   }
//   static_input.copy_(next_batch);
//   graph.replay();                 // loss holds the new step's loss
//
// On CUDA (//cuda): stream capture on a capture stream of the graph's own, replayed on the
// current stream. On the simulated device (//tensor/sim): the kernel calls and their operands
// are recorded, and replay calls them again.
#include <memory>

#include "tensor/device.h"
#include "tensor/graphs/mempool_id.h"

namespace brisk::graphs {

class Executable;

class Graph {
 public:
  // A graph of `device`'s work (a CUDA or simulated device).
  explicit Graph(Device device);
  // reset().
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Starts capturing the device's work. Memory allocated on the device until capture_end()
  // comes from `pool` (graph_pool_handle(), shared with the graphs that captured into it
  // before: replay those in the order they were captured) or, by default, from a pool of this
  // graph's own. Raises if the graph already holds a capture or the device is being captured.
  void capture_begin(MempoolId pool = {});
  // Ends the capture; the graph can then be replayed.
  void capture_end();
  // Runs the captured work again. Raises unless capture_end() has completed.
  void replay();
  // Drops the capture (and ends one underway) and releases the pool: its memory goes back to
  // the device as the tensors that refer to it are freed. The graph can capture again.
  void reset();

  Device device() const { return device_; }
  // The pool this graph's capture allocates from (id 0 before capture_begin).
  MempoolId pool() const { return pool_; }
  bool is_capturing() const { return state_ == State::kCapturing; }
  bool is_captured() const { return state_ == State::kCaptured; }

 private:
  enum class State { kEmpty, kCapturing, kCaptured };

  Device device_;
  MempoolId pool_;
  State state_ = State::kEmpty;
  std::unique_ptr<Executable> executable_;
};

// For a scope, as torch.cuda.graph: capture_begin(pool) at construction, capture_end() at the
// end of the scope; when the scope is left by an exception, the capture is discarded
// (graph.reset()) and the exception goes on. capture_end() may raise (a capture the device
// invalidated), hence the destructor may throw when no other exception is underway.
class GraphCapture {
 public:
  explicit GraphCapture(Graph& graph, MempoolId pool = {});
  ~GraphCapture() noexcept(false);
  GraphCapture(const GraphCapture&) = delete;
  GraphCapture& operator=(const GraphCapture&) = delete;

 private:
  Graph& graph_;
  int exceptions_at_start_;
};

}  // namespace brisk::graphs
