#pragma once
// A number passed to an op (the 2 in `x * 2`). Like a Python number in PyTorch, it takes
// part in type promotion only by its category: bool < integer < floating point.
#include <cstdint>

#include "tensor/dtype.h"

namespace brisk {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Float };

  Scalar() : Scalar(int64_t(0)) {}
  Scalar(double v) : kind_(Kind::Float), f_(v), i_(static_cast<int64_t>(v)) {}
  Scalar(float v) : Scalar(static_cast<double>(v)) {}
  Scalar(int64_t v) : kind_(Kind::Int), f_(static_cast<double>(v)), i_(v) {}
  Scalar(int v) : Scalar(static_cast<int64_t>(v)) {}
  Scalar(bool v) : kind_(Kind::Bool), f_(v ? 1.0 : 0.0), i_(v ? 1 : 0) {}

  Kind kind() const { return kind_; }
  bool is_floating_point() const { return kind_ == Kind::Float; }
  double to_double() const { return f_; }
  int64_t to_int() const { return i_; }
  // The dtype a 0-dim tensor holding this number gets: float64, int64 or bool.
  DType dtype() const { return kind_ == Kind::Float ? kFloat64 : kind_ == Kind::Int ? kInt64 : kBool; }

 private:
  Kind kind_;
  double f_;
  int64_t i_;
};

}  // namespace brisk
