#pragma once
// One functor per TernaryOp (tensor/op_kinds.h). T is the type the op computes in.
#include "tensor/functors/math.h"
#include "tensor/op_kinds.h"

namespace brisk::functors {

template <typename T>
struct Where {
  BRISK_INLINE T operator()(bool cond, T a, T b) const { return cond ? a : b; }
};

// Tensor bounds: a NaN in x or in a bound gives NaN, and lo > hi gives hi, as torch.clamp.
template <typename T>
struct ClampTensor {
  BRISK_INLINE T operator()(T x, T lo, T hi) const { return minimum_propagate_nan(maximum_propagate_nan(x, lo), hi); }
};

// a + value * b * c
template <typename T>
struct Addcmul {
  T value;
  explicit Addcmul(OpParams p) : value(param_as<T>(p.a)) {}
  BRISK_INLINE T operator()(T a, T b, T c) const { return static_cast<T>(a + value * b * c); }
};

// a + value * b / c (floating point only, as PyTorch)
template <typename T>
struct Addcdiv {
  T value;
  explicit Addcdiv(OpParams p) : value(param_as<T>(p.a)) {}
  BRISK_INLINE T operator()(T a, T b, T c) const { return a + value * b / c; }
};

}  // namespace brisk::functors
