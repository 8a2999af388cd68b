#include "cuda/stream.h"

#include <utility>
#include <vector>

#include "cuda/device.h"
#include "cuda/error.h"
#include "cuda/memory.h"
#include "cuda/stream_registry.h"

namespace brisk::cuda {
namespace {

// Indexed by device; devices never set on this thread use the default stream.
thread_local std::vector<cudaStream_t> current_streams;

}  // namespace

cudaStream_t current_stream(int device) {
  return static_cast<size_t>(device) < current_streams.size() ? current_streams[device] : default_stream();
}

void set_current_stream(int device, cudaStream_t stream) {
  if (static_cast<size_t>(device) >= current_streams.size()) current_streams.resize(device + 1, default_stream());
  current_streams[device] = stream;
}

void synchronize_current_stream(int device) {
  DeviceGuard guard(device);  // the default stream's handle means the current device's
  BRISK_CUDA_CHECK(cudaStreamSynchronize(current_stream(device)));
}

Stream::Stream(int device, int priority) : device_(device) {
  DeviceGuard guard(device);
  BRISK_CUDA_CHECK(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, priority));
  stream_registry().created(stream_);
}

Stream::Stream() : Stream(current_device()) {}

Stream::~Stream() { destroy(); }

void Stream::destroy() noexcept {
  if (stream_ == nullptr) return;
  retire_stream(stream_);
  cudaStreamDestroy(stream_);
  stream_ = nullptr;
}

Stream::Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)), device_(other.device_) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    destroy();
    stream_ = std::exchange(other.stream_, nullptr);
    device_ = other.device_;
  }
  return *this;
}

bool Stream::query() const { return BRISK_CUDA_QUERY(cudaStreamQuery(stream_)); }

void Stream::synchronize() const { BRISK_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

void Stream::wait_stream(cudaStream_t other) const {
  int other_device = 0;
  BRISK_CUDA_CHECK(cudaStreamGetDevice(other, &other_device));
  cuda::wait_stream(stream_, device_, other, other_device);
}

void wait_stream(cudaStream_t waiter, int waiter_device, cudaStream_t other, int other_device) {
  cudaEvent_t event;
  {
    DeviceGuard guard(other_device);
    BRISK_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    BRISK_CUDA_CHECK(cudaEventRecord(event, other));
  }
  DeviceGuard guard(waiter_device);
  BRISK_CUDA_CHECK(cudaStreamWaitEvent(waiter, event, 0));
  // Safe while the wait is pending: the event's resources are released once it completes.
  BRISK_CUDA_CHECK(cudaEventDestroy(event));
}

StreamGuard::StreamGuard(cudaStream_t stream, int device)
    : device_guard_(device), device_(device), previous_stream_(current_stream(device)) {
  set_current_stream(device_, stream);
}

StreamGuard::StreamGuard(const Stream& stream) : StreamGuard(stream.handle(), stream.device()) {}

// The stream first; then device_guard_ restores the device.
StreamGuard::~StreamGuard() { set_current_stream(device_, previous_stream_); }

}  // namespace brisk::cuda
