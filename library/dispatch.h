#pragma once
// What every call of a registered op does before its kernel runs, in one place: find the
// device of the tensor arguments, check that they agree, pick that device type's kernel, and
// describe the inputs for the profiler.
#include <cstdint>
#include <vector>

#include "library/registry.h"
#include "profiler/record.h"
#include "tensor/tensor.h"

namespace brisk::library::detail {

// The tensor arguments of one call, each with its position in the schema (and in its
// Tensor[]), to name it in errors.
class TensorArgs {
 public:
  struct Ref {
    const Tensor* tensor;
    uint32_t argument;   // position in the schema
    int32_t list_index;  // position in its Tensor[], or -1
  };

  void add(uint32_t argument, const Tensor& t) { refs_.push_back({&t, argument, -1}); }
  void add(uint32_t argument, const std::vector<Tensor>& list) {
    for (size_t i = 0; i < list.size(); ++i) refs_.push_back({&list[i], argument, static_cast<int32_t>(i)});
  }
  template <typename NotATensor>
  void add(uint32_t, const NotATensor&) {}

  const std::vector<Ref>& refs() const { return refs_; }

 private:
  std::vector<Ref> refs_;
};

// The kernel for the device of the defined tensor arguments (the CPU's if there are none).
// Raises brisk::Error, naming the op and the arguments, when they are on different devices,
// when floating-point ones differ in dtype (integer and bool tensors, such as indices and
// masks, are exempt), when one requires grad while grad mode is on (a registered op records
// no gradient: it is called from an autograd::Function), and when the device type has no
// kernel: "myext::op: no kernel for device sim:0 (kernels: CPU, CUDA)".
const Kernel& select_kernel(const OpEntry& op, const TensorArgs& tensors);

// The profiler's arguments of the call's event, as the built-in ops record them: "Input Dims",
// "Input type" and "device" of the tensor arguments.
profiler::Args profile_args(const TensorArgs& tensors);

}  // namespace brisk::library::detail
