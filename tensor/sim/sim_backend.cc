#include "tensor/sim/sim_backend.h"

#include <atomic>
#include <tuple>
#include <vector>

#include "tensor/graphs/capture_state.h"
#include "tensor/sim/sim_graph.h"
#include "tensor/sim/sim_memory.h"

namespace brisk::sim {
namespace {

std::atomic<uint64_t> device_to_host_copies{0}, host_to_device_copies{0}, device_to_device_copies{0};

// Checks that every defined tensor among a kernel's arguments (a list's too) is on one
// simulated device, raising otherwise with the op, the device of the first defined tensor (the
// output, where there is one) and the odd tensor; arguments that are no tensors are skipped.
class OneSimDevice {
 public:
  explicit OneSimDevice(const char* op) : op_(op) {}

  void operator()(const Tensor& t) {
    if (!t.defined()) return;
    if (first_ == nullptr) {
      first_ = &t;
      BRISK_CHECK(t.device().is_sim(), "{}: the simulated device's kernel was given a tensor on {} ({})", op_,
                  t.device(), t.describe());
      return;
    }
    BRISK_CHECK(t.device() == first_->device(),
                "{}: expected all tensors to be on the same device, but found at least two devices, {} ({}) and {} "
                "({})",
                op_, first_->device(), first_->describe(), t.device(), t.describe());
  }
  void operator()(const std::vector<Tensor>& list) {
    for (const Tensor& t : list) (*this)(t);
  }
  template <typename T>
  void operator()(const T&) {}

  // The first defined tensor (null when none is).
  const Tensor* first() const { return first_; }

 private:
  const char* op_;
  const Tensor* first_ = nullptr;
};

// A kernel argument as the host's kernel receives it: a tensor's host alias (sim_memory.h), a
// list of their host aliases, anything else unchanged.
Tensor on_host_view(const Tensor& t) { return host_alias(t); }
std::vector<Tensor> on_host_view(const std::vector<Tensor>& list) {
  std::vector<Tensor> aliases;
  aliases.reserve(list.size());
  for (const Tensor& t : list) aliases.push_back(host_alias(t));
  return aliases;
}
template <typename T>
const T& on_host_view(const T& arg) {
  return arg;
}

// Runs `kernel` (the host backend's) on `args` seen from the host, once they are all on one
// simulated device; while that device is captured (sim_graph.h), records the call instead,
// with copies of the arguments (the tensors' host aliases keep their memory alive).
template <typename Kernel, typename... Args>
void on_host(const char* op, const Kernel& kernel, const Args&... args) {
  OneSimDevice one_device(op);
  (one_device(args), ...);
  const Tensor* first = one_device.first();
  if (first != nullptr && capture_underway() &&
      record_kernel(first->device(), op,
                    [kernel, host_args = std::make_tuple(on_host_view(args)...)] { std::apply(kernel, host_args); })) {
    return;
  }
  count_kernel_run();
  kernel(on_host_view(args)...);
}

}  // namespace

CopyCounts copy_counts() {
  return {device_to_host_copies.load(), host_to_device_copies.load(), device_to_device_copies.load()};
}

void reset_copy_counts() {
  device_to_host_copies = 0;
  host_to_device_copies = 0;
  device_to_device_copies = 0;
}

void SimBackend::copy(const Tensor& dst, const Tensor& src, bool non_blocking) {
  auto on_host_or_sim = [](const Tensor& t) { return t.device().is_cpu() || t.device().is_sim(); };
  BRISK_CHECK(on_host_or_sim(dst) && on_host_or_sim(src) && (dst.device().is_sim() || src.device().is_sim()),
              "copy_: the simulated device copies between host and sim tensors, got destination {} and source {}",
              dst.describe(), src.describe());
  const bool to_sim = dst.device().is_sim(), from_sim = src.device().is_sim();
  if (to_sim && from_sim && dst.device() == src.device()) {  // a kernel of one device
    on_host(
        "copy_", [this, non_blocking](const Tensor& d, const Tensor& s) { host_.copy(d, s, non_blocking); }, dst, src);
    return;
  }
  if (!to_sim) ++device_to_host_copies;
  if (!from_sim) ++host_to_device_copies;
  if (to_sim && from_sim) {
    ++device_to_device_copies;
    graphs::check_not_capturing(dst.device(), "copy_ from another simulated device",
                                "a graph captures the work of its own device only");
    graphs::check_not_capturing(src.device(), "copy_ to another simulated device",
                                "a graph captures the work of its own device only");
  }
  host_.copy(to_sim ? host_alias(dst) : dst, from_sim ? host_alias(src) : src, non_blocking);
}

#define BRISK_SIM_FORWARD(name, params, args, event, inputs)                                               \
  void SimBackend::name params {                                                                           \
    on_host(                                                                                               \
        event, [this](const auto&... host_args) { host_.name(host_args...); }, BRISK_BACKEND_UNPACK args); \
  }
BRISK_BACKEND_KERNELS(BRISK_SIM_FORWARD)
#undef BRISK_SIM_FORWARD

}  // namespace brisk::sim
