#include "tensor/sim/sim_backend.h"

#include <atomic>
#include <initializer_list>
#include <tuple>

#include "tensor/graphs/capture_state.h"
#include "tensor/sim/sim_graph.h"
#include "tensor/sim/sim_memory.h"

namespace brisk::sim {
namespace {

std::atomic<uint64_t> device_to_host_copies{0}, host_to_device_copies{0}, device_to_device_copies{0};

// Errors unless every defined tensor is on one simulated device, naming the op, the device
// of the first defined tensor (the output, where there is one) and the odd tensor. Returns
// that first tensor (null when none is defined).
const Tensor* check_one_sim_device(const char* op, std::initializer_list<const Tensor*> tensors) {
  const Tensor* first = nullptr;
  for (const Tensor* t : tensors) {
    if (t == nullptr || !t->defined()) continue;
    if (first == nullptr) {
      first = t;
      BRISK_CHECK(t->device().is_sim(), "{}: the simulated device's kernel was given a tensor on {} ({})", op,
                  t->device(), t->describe());
      continue;
    }
    BRISK_CHECK(t->device() == first->device(),
                "{}: expected all tensors to be on the same device, but found at least two devices, {} ({}) and {} "
                "({})",
                op, first->device(), first->describe(), t->device(), t->describe());
  }
  return first;
}

// A kernel argument as check_one_sim_device sees it (null: not a tensor) and as the host's
// kernel receives it (a tensor's host alias, sim_memory.h; anything else unchanged).
const Tensor* tensor_or_null(const Tensor& t) { return &t; }
template <typename T>
const Tensor* tensor_or_null(const T&) {
  return nullptr;
}
Tensor on_host_view(const Tensor& t) { return host_alias(t); }
template <typename T>
const T& on_host_view(const T& arg) {
  return arg;
}

// Runs `kernel` (the host backend's) on `args` seen from the host, once they are all on one
// simulated device; while that device is captured (sim_graph.h), records the call instead,
// with copies of the arguments (the tensors' host aliases keep their memory alive).
template <typename Kernel, typename... Args>
void on_host(const char* op, const Kernel& kernel, const Args&... args) {
  const Tensor* first = check_one_sim_device(op, {tensor_or_null(args)...});
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
