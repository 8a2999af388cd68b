#include "tensor/sim/sim_graph.h"

#include <atomic>
#include <map>
#include <mutex>
#include <vector>

#include "tensor/error.h"

namespace brisk::sim {
namespace {

std::atomic<uint64_t> kernels_run{0}, kernels_recorded{0}, kernels_replayed{0};

using Recording = std::vector<std::function<void()>>;

// The recordings underway, by sim device index. Kernels may be dispatched from any thread
// (a capture records the device's work, as a CUDA capture in relaxed mode would).
std::atomic<int> captures{0};
std::mutex mutex;
std::map<int, Recording> recordings;

class SimExecutable final : public graphs::Executable {
 public:
  explicit SimExecutable(Recording kernels) : kernels_(std::move(kernels)) {}
  void replay() override {
    for (const auto& kernel : kernels_) kernel();
    kernels_replayed += kernels_.size();
  }

 private:
  Recording kernels_;
};

}  // namespace

KernelCounts kernel_counts() { return {kernels_run.load(), kernels_recorded.load(), kernels_replayed.load()}; }

void reset_kernel_counts() {
  kernels_run = 0;
  kernels_recorded = 0;
  kernels_replayed = 0;
}

bool capture_underway() { return captures.load(std::memory_order_acquire) != 0; }

bool record_kernel(Device device, const char* op, std::function<void()> kernel) {
  std::lock_guard<std::mutex> lock(mutex);
  if (recordings.empty()) return false;
  auto it = recordings.find(device.index);
  BRISK_CHECK(it != recordings.end(),
              "{} on {} during the graph capture of sim:{}: a graph captures the work of its own device only; run "
              "other devices' work outside the capture",
              op, device, recordings.begin()->first);
  it->second.push_back(std::move(kernel));
  ++kernels_recorded;
  return true;
}

void count_kernel_run() { kernels_run.fetch_add(1, std::memory_order_relaxed); }

void SimGraphBackend::capture_begin(Device device, graphs::MempoolId) {
  std::lock_guard<std::mutex> lock(mutex);
  BRISK_CHECK(recordings.empty(),
              "capture_begin: sim:{} is being captured; the simulated devices capture one graph at a time",
              recordings.empty() ? 0 : recordings.begin()->first);
  recordings.emplace(device.index, Recording());
  ++captures;
}

std::unique_ptr<graphs::Executable> SimGraphBackend::capture_end(Device device) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = recordings.find(device.index);
  BRISK_CHECK(it != recordings.end(), "capture_end: {} is not being captured", device);
  auto executable = std::make_unique<SimExecutable>(std::move(it->second));
  recordings.erase(it);
  --captures;
  return executable;
}

void SimGraphBackend::capture_abort(Device device) noexcept {
  std::lock_guard<std::mutex> lock(mutex);
  if (recordings.erase(device.index) != 0) --captures;
}

// The recorded calls held the pool's memory; it went with the executable.
void SimGraphBackend::release_pool(Device, graphs::MempoolId) {}

}  // namespace brisk::sim
