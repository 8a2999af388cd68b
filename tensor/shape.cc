#include "tensor/shape.h"

#include <algorithm>

#include "tensor/error.h"

namespace brisk {

int64_t shape_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

Shape contiguous_strides(const Shape& shape) {
  Shape strides(shape.size());
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= std::max<int64_t>(shape[i], 1);
  }
  return strides;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    BRISK_CHECK(da == db || da == 1 || db == 1, "{}: shapes {} and {} cannot be broadcast together (dim {}: {} vs {})",
                op, a, b, i, da, db);
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  int64_t lo = ndim == 0 ? -1 : -ndim;
  int64_t hi = ndim == 0 ? 0 : ndim - 1;
  BRISK_CHECK(dim >= lo && dim <= hi, "{}: dim {} is out of range for a tensor of {} dims (expected {} to {})", op, dim,
              ndim, lo, hi);
  return dim < 0 ? dim + std::max<int64_t>(ndim, 1) : dim;
}

std::vector<int64_t> wrap_dims(const std::vector<int64_t>& dims, int64_t ndim, const char* op) {
  std::vector<int64_t> out;
  if (dims.empty()) {
    for (int64_t d = 0; d < ndim; ++d) out.push_back(d);
    return out;
  }
  for (int64_t d : dims) out.push_back(wrap_dim(d, ndim, op));
  std::sort(out.begin(), out.end());
  BRISK_CHECK(std::adjacent_find(out.begin(), out.end()) == out.end(), "{}: dim list {} repeats a dim", op, dims);
  if (ndim == 0) out.clear();
  return out;
}

Shape infer_size(const Shape& shape, int64_t numel, const char* op) {
  Shape out = shape;
  int64_t known = 1;
  int infer_at = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      BRISK_CHECK(infer_at < 0, "{}: shape {} has more than one -1", op, shape);
      infer_at = static_cast<int>(i);
    } else {
      BRISK_CHECK(shape[i] >= 0, "{}: shape {} has a negative size", op, shape);
      known *= shape[i];
    }
  }
  if (infer_at >= 0) {
    BRISK_CHECK(known != 0 && numel % known == 0, "{}: shape {} is invalid for input of size {}", op, shape, numel);
    out[infer_at] = numel / known;
  } else {
    BRISK_CHECK(known == numel, "{}: shape {} is invalid for input of size {}", op, shape, numel);
  }
  return out;
}

}  // namespace brisk
