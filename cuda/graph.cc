// CUDA graphs (tensor/graphs/graph.h on CUDA devices): stream capture on a capture stream of
// each device, cudaGraphInstantiate, cudaGraphLaunch on the current stream. Registered for
// DeviceType::CUDA at static initialization (//cuda:runtime is alwayslink).
//
// The capture is thread-local (cudaStreamCaptureModeThreadLocal): autograd's engine runs
// backward on the calling thread, so the whole step is queued by the capturing thread, and
// other threads (data loader workers pinning memory) may keep using the device meanwhile.
#include <map>
#include <memory>
#include <mutex>

#include "cuda/device.h"
#include "cuda/error.h"
#include "cuda/graph_pools.h"
#include "cuda/stream.h"
#include "tensor/graphs/graph_backend.h"

namespace brisk::cuda {
namespace {

// One per device, made on first capture and never destroyed: the blocks a capture allocates
// are keyed by its stream's id, so graphs that share a pool must capture on one stream.
Stream& capture_stream(int device) {
  static std::mutex mutex;
  static auto* streams = new std::map<int, Stream*>;
  std::lock_guard<std::mutex> lock(mutex);
  Stream*& stream = (*streams)[device];
  if (stream == nullptr) stream = new Stream(device);
  return *stream;
}

class CudaExecutable final : public graphs::Executable {
 public:
  CudaExecutable(int device, cudaGraph_t graph, cudaGraphExec_t exec) : device_(device), graph_(graph), exec_(exec) {}
  ~CudaExecutable() override {
    run_reporting_failure("destroying a CUDA graph", [&] {
      BRISK_CUDA_CHECK(cudaGraphExecDestroy(exec_));
      BRISK_CUDA_CHECK(cudaGraphDestroy(graph_));
    });
  }
  CudaExecutable(const CudaExecutable&) = delete;
  CudaExecutable& operator=(const CudaExecutable&) = delete;

  void replay() override {
    DeviceGuard guard(device_);
    BRISK_CUDA_CHECK(cudaGraphLaunch(exec_, current_stream(device_)));
  }

 private:
  int device_;
  cudaGraph_t graph_;
  cudaGraphExec_t exec_;
};

class CudaGraphBackend final : public graphs::GraphBackend {
 public:
  void capture_begin(Device device, graphs::MempoolId pool) override {
    const int d = device.index;
    check_device(d);
    DeviceGuard guard(d);
    Stream& stream = capture_stream(d);
    cudaStream_t previous = current_stream(d);
    stream.wait_stream(previous);  // the capture follows the work queued so far (static inputs' copies)
    begin_allocate_to_pool(d, pool.id, stream);
    set_current_stream(d, stream);
    cudaError_t status = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
    if (status != cudaSuccess) {
      set_current_stream(d, previous);
      end_allocate_to_pool(d, pool.id);
      cuda::release_pool(d, pool.id);
      BRISK_CUDA_CHECK(status);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    captures_[d] = {previous, pool.id};
  }

  std::unique_ptr<graphs::Executable> capture_end(Device device) override {
    const int d = device.index;
    DeviceGuard guard(d);
    Capture capture = take(d);
    cudaGraph_t graph = nullptr;
    cudaError_t status = cudaStreamEndCapture(capture_stream(d), &graph);
    end_allocate_to_pool(d, capture.pool);
    set_current_stream(d, capture.previous);
    wait_stream(capture.previous, d, capture_stream(d), d);
    BRISK_CHECK(status == cudaSuccess,
                "capture_end on cuda:{}: the capture was invalidated ({}): an operation that stream capture does not "
                "allow ran on the capturing thread during the capture (a synchronization, a host copy, a library call "
                "that waits for the device)",
                d, cudaGetErrorString(status));
    cudaGraphExec_t exec = nullptr;
    status = cudaGraphInstantiate(&exec, graph, 0);
    if (status != cudaSuccess) {
      cudaGraphDestroy(graph);
      BRISK_CUDA_CHECK(status);
    }
    return std::make_unique<CudaExecutable>(d, graph, exec);
  }

  void capture_abort(Device device) noexcept override {
    const int d = device.index;
    run_reporting_failure("discarding a CUDA graph capture", [&] {
      DeviceGuard guard(d);
      Capture capture = take(d);
      cudaGraph_t graph = nullptr;
      cudaStreamEndCapture(capture_stream(d), &graph);  // fails for an invalidated capture: nothing to keep
      cudaGetLastError();
      if (graph != nullptr) cudaGraphDestroy(graph);
      end_allocate_to_pool(d, capture.pool);
      set_current_stream(d, capture.previous);
    });
  }

  void release_pool(Device device, graphs::MempoolId pool) override { cuda::release_pool(device.index, pool.id); }

 private:
  struct Capture {
    cudaStream_t previous;
    uint64_t pool;
  };

  Capture take(int device) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = captures_.find(device);
    BRISK_CHECK(it != captures_.end(), "CUDA graphs: cuda:{} is not being captured", device);
    Capture capture = it->second;
    captures_.erase(it);
    return capture;
  }

  std::mutex mutex_;
  std::map<int, Capture> captures_;
};

[[maybe_unused]] const bool registered = [] {
  static CudaGraphBackend backend;
  graphs::register_graph_backend(DeviceType::CUDA, &backend);
  return true;
}();

}  // namespace
}  // namespace brisk::cuda
