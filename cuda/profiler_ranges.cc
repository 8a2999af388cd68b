// While a profiler records (profiler/profiler.h), every scope becomes an NVTX range of its
// thread (Nsight Systems shows them over the GPU's timeline), and every op on a CUDA device
// is timed on the GPU: a pair of CUDA events around its kernels on the device's current
// stream, turned into a "kernel" event when the session stops. GPU times are placed on the
// host's clock through the session's first event pair (its start is taken as the moment the
// host recorded it), so they may sit a little early; their durations are the GPU's.
// Registered at static initialization (alwayslink through //cuda).
#include <nvtx3/nvToolsExt.h>

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cuda/event.h"
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

class CudaRanges final : public profiler::ScopeObserver {
 public:
  void on_begin(const profiler::Event& e) override {
    nvtxRangePushA(e.name.c_str());
    std::optional<int> device = cuda_ordinal(e);
    if (e.category != profiler::Category::Op || !device) return;
    Timed timed{&e, e.name, *device, e.start_ns, Event(/*enable_timing=*/true), Event(/*enable_timing=*/true)};
    timed.begin.record(current_stream(*device));
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
        it->end.record(current_stream(*device));
        done_.push_back(std::move(*it));
        open_.erase(std::next(it).base());
        break;
      }
    }
  }

  std::vector<profiler::Event> collect() override {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<profiler::Event> events;
    if (!done_.empty()) {
      const Timed& origin = done_.front();
      for (Timed& t : done_) {
        t.end.synchronize();
        auto ns = [](float ms) { return static_cast<int64_t>(static_cast<double>(ms) * 1e6); };
        profiler::Event e;
        e.name = t.name;
        e.category = profiler::Category::Kernel;
        e.start_ns = origin.host_start_ns + (&t == &origin ? 0 : ns(origin.begin.elapsed_time(t.begin)));
        e.end_ns = e.start_ns + ns(t.begin.elapsed_time(t.end));
        e.thread_id = -1 - t.device;  // one track per GPU
        e.args = {{"device", "cuda:" + std::to_string(t.device)}};
        events.push_back(std::move(e));
      }
    }
    open_.clear();
    done_.clear();
    return events;
  }

 private:
  struct Timed {
    const profiler::Event* scope;  // the open scope's event, until it ends
    std::string name;
    int device;
    int64_t host_start_ns;
    Event begin;
    Event end;
  };
  std::mutex mutex_;
  std::vector<Timed> open_;
  std::vector<Timed> done_;
};

const bool registered = [] {
  static CudaRanges ranges;
  profiler::add_scope_observer(&ranges);
  return true;
}();

}  // namespace
}  // namespace brisk::cuda
