#pragma once
// A registered op, as find_op returns it: called like a function, it dispatches on the device
// of its tensor arguments (library/dispatch.h) and runs that device type's kernel inside a
// profiler scope named after the op.
#include <string>

#include "library/dispatch.h"
#include "library/registry.h"
#include "library/signature.h"
#include "profiler/record.h"

namespace brisk::library {

template <typename Signature>
class Op;

template <typename R, typename... Args>
class Op<R(Args...)> {
 public:
  explicit Op(const detail::OpEntry& op) : op_(&op) {}

  R operator()(Args... args) const {
    detail::TensorArgs tensors;
    uint32_t position = 0;
    (tensors.add(position++, args), ...);
    const detail::Kernel& kernel = detail::select_kernel(*op_, tensors);
    profiler::RecordScope scope(profiler::Category::Op, op_->name, [&] { return detail::profile_args(tensors); });
    auto invoke = reinterpret_cast<detail::Invoker<R, Args...>>(kernel.invoker);
    return invoke(kernel.function, args...);
  }

  // "myext::scaled_silu".
  const std::string& name() const { return op_->name; }

 private:
  const detail::OpEntry* op_;
};

}  // namespace brisk::library
