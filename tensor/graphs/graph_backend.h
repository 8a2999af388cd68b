#pragma once
// What a device type implements so that graphs (tensor/graphs/graph.h) capture and replay its
// work: //tensor/sim registers the simulated device's (it records the kernel calls), //cuda
// CUDA's (stream capture). Graph makes the calls in a valid order and keeps the
// bookkeeping every device type shares (states, pools' devices, capture_state.h).
#include <memory>

#include "tensor/device.h"
#include "tensor/graphs/mempool_id.h"

namespace brisk::graphs {

// A captured graph, ready to run.
class Executable {
 public:
  virtual ~Executable() = default;
  // Runs the captured work again, on the same memory, queued like a kernel (on CUDA: on the
  // device's current stream).
  virtual void replay() = 0;
};

class GraphBackend {
 public:
  virtual ~GraphBackend() = default;
  // From now on the device's work is captured, not run, and its new memory comes from `pool`
  // (a pool used by an earlier capture of this device is shared: its memory is handed out
  // again only when free).
  virtual void capture_begin(Device device, MempoolId pool) = 0;
  // Ends the capture begun on `device` and returns what it captured.
  virtual std::unique_ptr<Executable> capture_end(Device device) = 0;
  // Ends the capture begun on `device` after an error, discarding it. Never throws.
  virtual void capture_abort(Device device) noexcept = 0;
  // A graph that captured into `pool` is reset or destroyed: once every graph that used the
  // pool has released it, its memory goes back to the device as no tensor refers to it.
  virtual void release_pool(Device device, MempoolId pool) = 0;
};

// The graph backend of `device`'s type; errors naming the device when there is none.
GraphBackend& graph_backend_for(Device device);
// Installs the graph backend of a device type (at static initialization).
void register_graph_backend(DeviceType type, GraphBackend* backend);

}  // namespace brisk::graphs
