// While a profiler records (profiler/profiler.h), every scope becomes an NVTX range of its
// thread (Nsight Systems shows them over the GPU's timeline), and every op on a CUDA device
// is timed on the GPU: a pair of CUDA events around its kernels on the current stream of the
// op's device, turned into a "kernel" event when the session stops (cuda/gpu_op_times.h places
// them on the host's clock, per device).
// Registered at static initialization (alwayslink through //cuda).
#include <nvtx3/nvToolsExt.h>

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cuda/device.h"
#include "cuda/event.h"
#include "cuda/gpu_op_times.h"
#include "cuda/stream.h"
#include "profiler/record.h"

namespace brisk::cuda {
namespace {

// "cuda:3" -> 3; any other device -> nullopt.
std::optional<int> cuda_ordinal(const profiler::Event& e) {
  for (const auto& [key, value] : e.args) {
    if (key == "device" && value.rfind("cuda:", 0) == 0) return std::stoi(value.substr(5));
  }
  return std::nullopt;
}

// Marks the work queued so far on the current stream of `device`. Under that device: the
// legacy default stream (nullptr) is the current device's, so with another device current the
// event would land on the wrong GPU, and the durations, measured across two devices, would
// fail when the session stops.
void record_on(Event& event, int device) {
  DeviceGuard guard(device);
  event.record(current_stream(device));
}

class CudaRanges final : public profiler::ScopeObserver {
 public:
  void on_begin(const profiler::Event& e) override {
    nvtxRangePushA(e.name.c_str());
    std::optional<int> device = cuda_ordinal(e);
    if (e.category != profiler::Category::Op || !device) return;
    Timed timed{&e, {e.name, *device, e.start_ns, Event(/*enable_timing=*/true), Event(/*enable_timing=*/true)}};
    record_on(timed.time.begin, *device);
    std::lock_guard<std::mutex> lock(mutex_);
    open_.push_back(std::move(timed));
  }

  void on_end(const profiler::Event& e) override {
    nvtxRangePop();
    std::optional<int> device = cuda_ordinal(e);
    if (e.category != profiler::Category::Op || !device) return;
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = open_.rbegin(); it != open_.rend(); ++it) {
      if (it->scope == &e) {
        record_on(it->time.end, *device);
        done_.push_back(std::move(it->time));
        open_.erase(std::next(it).base());
        break;
      }
    }
  }

  std::vector<profiler::Event> collect() override {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const GpuOpTime<Event>& t : done_) t.end.synchronize();
    std::vector<profiler::Event> events =
        gpu_op_events(done_, [](const Event& from, const Event& to) { return from.elapsed_time(to); });
    open_.clear();
    done_.clear();
    return events;
  }

 private:
  struct Timed {
    const profiler::Event* scope;  // the open scope's event, until it ends
    GpuOpTime<Event> time;
  };
  std::mutex mutex_;
  std::vector<Timed> open_;
  std::vector<GpuOpTime<Event>> done_;
};

const bool registered = [] {
  static CudaRanges ranges;
  profiler::add_scope_observer(&ranges);
  return true;
}();

}  // namespace
}  // namespace brisk::cuda
