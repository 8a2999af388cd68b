#include "library/dispatch.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>

#include "autograd/grad_mode.h"
#include "tensor/error.h"

namespace brisk::library::detail {
namespace {

// "x", or "tensors[2]" for an element of a Tensor[].
std::string argument_name(const OpEntry& op, const TensorArgs::Ref& ref) {
  const std::string& name = op.schema->arguments.at(ref.argument).name;
  return ref.list_index < 0 ? name : fmt::format("{}[{}]", name, ref.list_index);
}

std::string kernel_list(const OpEntry& op) {
  std::vector<const char*> names;
  for (size_t i = 0; i < op.kernels.size(); ++i)
    if (op.kernels[i].load(std::memory_order_acquire) != nullptr)
      names.push_back(device_type_name(static_cast<DeviceType>(i)));
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

const Kernel& select_kernel(const OpEntry& op, const TensorArgs& tensors) {
  const TensorArgs::Ref* first = nullptr;           // the first defined tensor: the call's device
  const TensorArgs::Ref* first_floating = nullptr;  // the first floating-point one: the dtype
  for (const TensorArgs::Ref& ref : tensors.refs()) {
    const Tensor& t = *ref.tensor;
    if (!t.defined()) continue;
    if (!first) {
      first = &ref;
    } else if (t.device() != first->tensor->device()) {
      BRISK_FAIL("{}: arguments {} ({}) and {} ({}) are on different devices", op.name, argument_name(op, *first),
                 first->tensor->describe(), argument_name(op, ref), t.describe());
    }
    if (t.is_floating_point()) {
      if (!first_floating) {
        first_floating = &ref;
      } else if (t.dtype() != first_floating->tensor->dtype()) {
        BRISK_FAIL("{}: floating-point arguments {} ({}) and {} ({}) differ in dtype", op.name,
                   argument_name(op, *first_floating), first_floating->tensor->describe(), argument_name(op, ref),
                   t.describe());
      }
    }
    if (t.requires_grad() && autograd::GradMode::is_enabled())
      BRISK_FAIL("{}: argument {} ({}) requires grad, but a registered op records no gradient; call it from an "
                 "autograd::Function's forward or backward, or under NoGradGuard (docs/extending.md)",
                 op.name, argument_name(op, ref), t.describe());
  }
  Device device = first ? first->tensor->device() : kCPU;
  const Kernel* kernel = op.kernels[static_cast<size_t>(device.type)].load(std::memory_order_acquire);
  if (!kernel) BRISK_FAIL("{}: no kernel for device {} (kernels: {})", op.name, device.str(), kernel_list(op));
  return *kernel;
}

profiler::Args profile_args(const TensorArgs& tensors) {
  std::string dims;
  std::string types;
  std::string device;
  for (const TensorArgs::Ref& ref : tensors.refs()) {
    const Tensor& t = *ref.tensor;
    if (!dims.empty()) dims += ", ", types += ", ";
    dims += t.defined() ? fmt::format("{}", t.sizes()) : "[]";
    types += t.defined() ? dtype_name(t.dtype()) : "";
    if (device.empty() && t.defined()) device = t.device().str();
  }
  return {{"Input Dims", "[" + dims + "]"}, {"Input type", types}, {"device", device}};
}

}  // namespace brisk::library::detail
