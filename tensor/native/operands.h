#pragma once
// Helpers the elementwise and reduction native ops share to prepare their operands and check
// in-place outputs. Internal to tensor/native.
#include "tensor/native/ops.h"

namespace brisk::native::detail {

// Integers up to this magnitude are exact as a double, which is how the Fill kernel takes a value.
constexpr int64_t kExactInDouble = int64_t(1) << 53;

// `t` converted to `dtype` on `device` and expanded to `shape`: a view when nothing changes.
Tensor operand(const Tensor& t, DType dtype, Device device, const Shape& shape);
// A new elementwise output of `shape` laid out like `inputs` (iter::output_strides: a
// channels_last input gives a channels_last output).
Tensor new_output(const Shape& shape, DType dtype, Device device, const std::vector<Tensor>& inputs);

// A 0-dim tensor holding `value` cast to `dtype` the way a kernel casts (integers wrap, no
// range check, int64 values exact), on `device`.
Tensor scalar_operand(Scalar value, DType dtype, Device device);

// The device an in-place op on `self` runs on: self's. Like common_device, except that a 0-dim
// CPU self does not follow its operands to another device (its memory cannot be written there).
Device inplace_device(const char* op, const Tensor& self, const std::vector<Tensor>& others);

// PyTorch's canCast: no float -> integral or bool, no integral -> bool.
bool can_cast(DType from, DType to);
// Errors, like PyTorch, when an in-place op computes `result` but self holds `self_dtype`:
// "add_: result type Float can't be cast to the desired output type Long".
void check_can_cast(const char* op, DType result, DType self_dtype);
// Errors when an in-place op's self does not have the broadcast shape, or several of its
// elements share one memory location (an expanded view).
void check_inplace_output(const char* op, const Tensor& self, const Shape& shape);
// Errors when `value` does not fit `dtype` (fill_: 256 into uint8), as PyTorch.
void check_fits(const char* op, Scalar value, DType dtype);

// Whether a and b share some memory without being the same view of it: then an in-place
// kernel that writes a while reading b would read values it already overwrote.
bool partially_overlaps(const Tensor& a, const Tensor& b);

}  // namespace brisk::native::detail
