#pragma once
// Automatic mixed precision (torch.autocast; docs/amp.md): inside an autocast scope the ops of
// autograd/autocast_policy.h cast their floating point inputs as its table says. The casts are
// recorded ops, so gradients flow back to the tensors as they were passed in. The state is per
// thread and per device type (the simulated device has its own); backward runs with it off.
#include <array>
#include <cstddef>
#include <optional>
#include <vector>

#include "autograd/autocast_policy.h"
#include "tensor/device.h"
#include "tensor/dtype.h"
#include "tensor/tensor.h"

namespace brisk {

// Whether autocast is on for tensors of `device_type` on this thread, and its dtype there
// (bfloat16 for the CPU, float16 for CUDA and sim unless a scope chose otherwise).
bool is_autocast_enabled(DeviceType device_type);
DType get_autocast_dtype(DeviceType device_type);

// The scoped guard: autocast on (or off, with enabled = false) for tensors of the device's
// type until the guard is destroyed, which restores the previous state. dtype: bfloat16 or
// float16 (the device type's default when absent).
class autocast {
 public:
  explicit autocast(Device device_type, std::optional<DType> dtype = std::nullopt, bool enabled = true);
  ~autocast();
  autocast(const autocast&) = delete;
  autocast& operator=(const autocast&) = delete;

 private:
  DeviceType device_type_;
  bool previous_enabled_;
  DType previous_dtype_;
};

}  // namespace brisk

namespace brisk::autograd {

// Turns autocast off for every device type for a scope (the engine runs backward under one).
struct AutocastOff {
  autocast cpu{kCPU, std::nullopt, false};
  autocast cuda{cuda_device(), std::nullopt, false};
  autocast sim{sim_device(), std::nullopt, false};
};

namespace detail {

// Whether autocast is on for any device type on this thread: the one check an op pays when
// it is off everywhere.
bool autocast_on_anywhere();

// Applies `policy` to inputs[0..n) into cast[0..n) and, when it applies, turns autocast off
// for the inputs' device type while the scope lives; returns whether it applied.
class AutocastScope {
 public:
  bool apply(AutocastPolicy policy, const Tensor* const* inputs, Tensor* cast, size_t n);

 private:
  std::optional<autocast> off_;
};

}  // namespace detail

// An op's inputs as autocast wants them; the ops of the policy table start with one (the
// elementwise rows of tensor/op_table.h get theirs from autograd::run_row):
//
//   Tensor matmul(const Tensor& a_in, const Tensor& b_in) {
//     AutocastInputs in(AutocastOp::matmul, a_in, b_in);
//     const Tensor &a = in[0], &b = in[1];
//
// When autocast is on for the inputs' device type (the first input not on the CPU, else the
// CPU) and the table (or the op's row, for a UnaryOp, BinaryOp or TernaryOp) gives the op a
// policy there, in[i] are the casts, and autocast stays off
// for that device type while the object lives, so the ops that the op is built from run as it
// decided (PyTorch likewise excludes the autocast key while it runs the op). Otherwise in[i]
// are the arguments themselves. Undefined tensors stay undefined.
template <size_t N>
class AutocastInputs {
 public:
  template <typename Op, typename... Ts>
  explicit AutocastInputs(Op op, const Ts&... inputs) : inputs_{&inputs...} {
    if (detail::autocast_on_anywhere()) {
      cast_applied_ = scope_.apply(autocast_policy(op), inputs_.data(), cast_.data(), N);
    }
  }
  const Tensor& operator[](size_t i) const { return cast_applied_ ? cast_[i] : *inputs_[i]; }

 private:
  std::array<const Tensor*, N> inputs_;
  std::array<Tensor, N> cast_;
  bool cast_applied_ = false;
  detail::AutocastScope scope_;
};
template <typename Op, typename... Ts>
AutocastInputs(Op, const Ts&...) -> AutocastInputs<sizeof...(Ts)>;

// The same for ops taking a list of tensors (cat, stack).
class AutocastInputList {
 public:
  AutocastInputList(AutocastOp op, const std::vector<Tensor>& inputs);
  const std::vector<Tensor>& tensors() const { return cast_applied_ ? cast_ : *inputs_; }

 private:
  const std::vector<Tensor>* inputs_;
  std::vector<Tensor> cast_;
  bool cast_applied_ = false;
  detail::AutocastScope scope_;
};

}  // namespace brisk::autograd

namespace brisk {
using autograd::AutocastOff;
}  // namespace brisk
