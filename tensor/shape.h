#pragma once
// Shapes and strides, counted in elements. fmt prints a Shape as "[2, 3]".
#include <cstdint>
#include <utility>
#include <vector>

#include "brisk/requires_cxx17.h"

namespace brisk {

// A std::vector<int64_t> that also answers libtorch's IntArrayRef::vec(): x.sizes().vec().
struct Shape : std::vector<int64_t> {
  using std::vector<int64_t>::vector;
  Shape() = default;
  Shape(const std::vector<int64_t>& dims) : std::vector<int64_t>(dims) {}
  Shape(std::vector<int64_t>&& dims) : std::vector<int64_t>(std::move(dims)) {}
  std::vector<int64_t> vec() const { return *this; }
};

int64_t shape_numel(const Shape& shape);
// Row-major strides of a dense tensor of this shape.
Shape contiguous_strides(const Shape& shape);
// NumPy broadcasting of two shapes; `op` names the caller in the error.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);
// Wraps a negative dim into [0, ndim); `op` names the caller in the error.
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);
// Every dim wrapped, sorted, checked for duplicates; empty `dims` means all dims.
std::vector<int64_t> wrap_dims(const std::vector<int64_t>& dims, int64_t ndim, const char* op);
// Replaces a single -1 in `shape` so that it holds `numel` elements.
Shape infer_size(const Shape& shape, int64_t numel, const char* op);

}  // namespace brisk
