#include "tensor/iter/loop_shape.h"

#include <utility>

#include "tensor/error.h"

namespace brisk::iter {
namespace {

void swap_dims(LoopShape& s, int a, int b) {
  std::swap(s.sizes[a], s.sizes[b]);
  for (int k = 0; k < s.noperands; ++k) std::swap(s.strides[k][a], s.strides[k][b]);
}

// Whether the dim at `inner` should move outward past `outer`: the first operand that has
// nonzero strides on both decides (out comes first, so the output is written in order).
bool should_swap(const LoopShape& s, int inner, int outer) {
  for (int k = 0; k < s.noperands; ++k) {
    int64_t a = s.strides[k][inner];
    int64_t b = s.strides[k][outer];
    if (a == 0 || b == 0 || a == b) continue;
    return a > b;
  }
  return false;
}

}  // namespace

LoopShape make_loop_shape(std::initializer_list<const Tensor*> operands, const char* op) {
  LoopShape s;
  s.noperands = static_cast<int>(operands.size());
  BRISK_CHECK(s.noperands <= kMaxOperands, "{}: {} operands, at most {} are supported", op, s.noperands, kMaxOperands);
  const Tensor& first = **operands.begin();
  const Shape& shape = first.sizes();
  BRISK_CHECK(static_cast<int>(shape.size()) <= kMaxDims, "{}: a tensor of {} dims; at most {} are supported", op,
              shape.size(), kMaxDims);
  int k = 0;
  for (const Tensor* t : operands) {
    BRISK_CHECK(t->sizes() == shape, "{}: operand of shape {} does not match the output shape {}", op, t->sizes(),
                shape);
    s.data[k++] = static_cast<char*>(t->raw_data());
  }
  // Innermost first, without size-1 dims (their strides do not matter).
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    s.numel *= shape[d];
    if (shape[d] == 1) continue;
    s.sizes[s.ndim] = shape[d];
    k = 0;
    for (const Tensor* t : operands) {
      s.strides[k++][s.ndim] = t->strides()[d] * static_cast<int64_t>(t->element_size());
    }
    ++s.ndim;
  }
  if (s.ndim == 0) {
    s.sizes[0] = 1;
    k = 0;
    for (const Tensor* t : operands) s.strides[k++][0] = static_cast<int64_t>(t->element_size());
    s.ndim = 1;
    return s;
  }
  for (int i = 1; i < s.ndim; ++i) {
    for (int j = i; j > 0 && should_swap(s, j - 1, j); --j) swap_dims(s, j - 1, j);
  }
  int64_t* strides[kMaxOperands];
  for (k = 0; k < s.noperands; ++k) strides[k] = s.strides[k];
  merge_dims(s.ndim, s.sizes, strides, s.noperands);
  return s;
}

}  // namespace brisk::iter
