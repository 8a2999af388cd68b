#include "cuda/event.h"

#include <utility>

#include "cuda/device.h"
#include "cuda/error.h"

namespace brisk::cuda {

Event::Event(bool enable_timing, bool blocking)
    : flags_((enable_timing ? cudaEventDefault : cudaEventDisableTiming) | (blocking ? cudaEventBlockingSync : 0)) {}

Event::~Event() {
  if (event_ != nullptr) cudaEventDestroy(event_);
}

Event::Event(Event&& other) noexcept
    : event_(std::exchange(other.event_, nullptr)), device_(other.device_), flags_(other.flags_) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    if (event_ != nullptr) cudaEventDestroy(event_);
    event_ = std::exchange(other.event_, nullptr);
    device_ = other.device_;
    flags_ = other.flags_;
  }
  return *this;
}

void Event::record(cudaStream_t stream) {
  int stream_device = 0;
  BRISK_CUDA_CHECK(cudaStreamGetDevice(stream, &stream_device));
  BRISK_CHECK(event_ == nullptr || stream_device == device_,
              "Event::record: the event belongs to cuda:{}, but the stream is on cuda:{}", device_, stream_device);
  DeviceGuard guard(stream_device);
  if (event_ == nullptr) {
    BRISK_CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags_));
    device_ = stream_device;
  }
  BRISK_CUDA_CHECK(cudaEventRecord(event_, stream));
}

void Event::record() { record(current_stream(current_device())); }

void Event::wait(cudaStream_t stream) const {
  if (event_ == nullptr) return;
  BRISK_CUDA_CHECK(cudaStreamWaitEvent(stream, event_, 0));
}

bool Event::query() const {
  if (event_ == nullptr) return true;
  return BRISK_CUDA_QUERY(cudaEventQuery(event_));
}

void Event::synchronize() const {
  if (event_ != nullptr) BRISK_CUDA_CHECK(cudaEventSynchronize(event_));
}

float Event::elapsed_time(const Event& end) const {
  BRISK_CHECK(recorded() && end.recorded(), "Event::elapsed_time: both events must be recorded first");
  BRISK_CHECK(!(flags_ & cudaEventDisableTiming) && !(end.flags_ & cudaEventDisableTiming),
              "Event::elapsed_time: both events must be created with enable_timing=true");
  float ms = 0;
  BRISK_CUDA_CHECK(cudaEventElapsedTime(&ms, event_, end.event_));
  return ms;
}

}  // namespace brisk::cuda
