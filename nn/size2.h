#pragma once
// A (height, width) pair for kernel sizes, strides, paddings and dilations, written as one
// number for both dims or as {height, width}, as in PyTorch:
//
//   F::conv2d(x, w, b, /*stride=*/2, /*padding=*/{1, 2});
#include <cstdint>

#include "tensor/window_params.h"

namespace brisk::nn {

class Size2 {
 public:
  Size2(int64_t both) : values_{both, both} {}
  Size2(int64_t height, int64_t width) : values_{height, width} {}
  Size2(Pair values) : values_(values) {}

  int64_t operator[](size_t i) const { return values_[i]; }
  const Pair& pair() const { return values_; }
  operator Pair() const { return values_; }
  bool operator==(const Size2& other) const { return values_ == other.values_; }

 private:
  Pair values_;
};

}  // namespace brisk::nn
