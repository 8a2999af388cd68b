#include "tensor/graphs/graph.h"

#include <atomic>
#include <exception>
#include <mutex>
#include <unordered_map>

#include "tensor/error.h"
#include "tensor/graphs/capture_state.h"
#include "tensor/graphs/graph_backend.h"

namespace brisk::graphs {
namespace {

std::atomic<uint64_t> next_pool_id{1};

// The device of each pool that a capture has used: a pool's memory is one device's.
std::mutex pools_mutex;
std::unordered_map<uint64_t, Device> pool_devices;

void bind_pool_to(MempoolId pool, Device device) {
  std::lock_guard<std::mutex> lock(pools_mutex);
  auto [it, inserted] = pool_devices.emplace(pool.id, device);
  BRISK_CHECK(inserted || it->second == device,
              "capture_begin: graph memory pool {} holds memory of {}'s graphs; a graph of {} cannot share it (use a "
              "graph_pool_handle() per device)",
              pool.id, it->second, device);
}

}  // namespace

MempoolId graph_pool_handle() { return {next_pool_id++}; }

Graph::Graph(Device device) : device_(device) {
  BRISK_CHECK(!device.is_cpu(), "Graph: graphs capture the work of a CUDA or simulated device, not of the {}", device);
}

Graph::~Graph() { reset(); }

void Graph::capture_begin(MempoolId pool) {
  BRISK_CHECK(state_ == State::kEmpty, "capture_begin: the graph of {} {}; reset() it before capturing again", device_,
              state_ == State::kCapturing ? "is capturing already" : "holds a capture");
  GraphBackend& backend = graph_backend_for(device_);
  BRISK_CHECK(!graphs::is_capturing(device_),
              "capture_begin: {} is being captured by another graph; end that capture first (one capture per device "
              "at a time)",
              device_);
  MempoolId chosen = pool.id != 0 ? pool : graph_pool_handle();
  bind_pool_to(chosen, device_);
  backend.capture_begin(device_, chosen);
  pool_ = chosen;
  state_ = State::kCapturing;
  detail::set_capturing(device_, true);
}

void Graph::capture_end() {
  BRISK_CHECK(state_ == State::kCapturing, "capture_end: the graph of {} is not capturing (call capture_begin first)",
              device_);
  detail::set_capturing(device_, false);
  try {
    executable_ = graph_backend_for(device_).capture_end(device_);
  } catch (...) {
    state_ = State::kCaptured;  // the backend ended the capture: reset() releases the pool only
    reset();
    throw;
  }
  state_ = State::kCaptured;
}

void Graph::replay() {
  BRISK_CHECK(state_ == State::kCaptured, "replay: the graph of {} {}", device_,
              state_ == State::kCapturing ? "is still capturing (call capture_end before replay)"
                                          : "holds no capture (capture_begin ... capture_end first)");
  executable_->replay();
}

void Graph::reset() {
  if (state_ == State::kEmpty) return;
  GraphBackend& backend = graph_backend_for(device_);
  if (state_ == State::kCapturing) {
    detail::set_capturing(device_, false);
    backend.capture_abort(device_);
  }
  executable_.reset();
  state_ = State::kEmpty;
  MempoolId pool = pool_;
  pool_ = {};
  backend.release_pool(device_, pool);
}

GraphCapture::GraphCapture(Graph& graph, MempoolId pool)
    : graph_(graph), exceptions_at_start_(std::uncaught_exceptions()) {
  graph_.capture_begin(pool);
}

GraphCapture::~GraphCapture() noexcept(false) {
  if (std::uncaught_exceptions() > exceptions_at_start_) {
    graph_.reset();
    return;
  }
  graph_.capture_end();
}

}  // namespace brisk::graphs
