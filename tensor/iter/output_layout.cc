#include "tensor/iter/output_layout.h"

#include <numeric>

namespace brisk::iter {
namespace {

// The strides of `t` broadcast to `shape`: 0 along the dims it is broadcast in.
Shape broadcast_strides(const Tensor& t, const Shape& shape) {
  const size_t lead = shape.size() - t.sizes().size();
  Shape strides(shape.size(), 0);
  for (size_t d = lead; d < shape.size(); ++d) {
    const int64_t size = t.sizes()[d - lead];
    strides[d] = size == 1 && shape[d] != 1 ? 0 : t.strides()[d - lead];
  }
  return strides;
}

// The fast cases: every input of the output's shape, and all in one layout.
bool common_layout(const Shape& shape, const std::vector<Tensor>& inputs, Shape& strides) {
  bool contiguous = true, channels_last = true, same_dense = true;
  const Tensor* first = nullptr;
  for (const Tensor& t : inputs) {
    if (!t.defined()) continue;
    if (t.sizes() != shape) return false;
    contiguous = contiguous && t.is_contiguous(MemoryFormat::Contiguous);
    channels_last = channels_last && t.is_contiguous(MemoryFormat::ChannelsLast);
    same_dense = same_dense && is_non_overlapping_and_dense(t.sizes(), t.strides()) &&
                 (first == nullptr || t.strides() == first->strides());
    if (first == nullptr) first = &t;
  }
  if (first == nullptr) return false;
  if (contiguous) {
    strides = contiguous_strides(shape);
  } else if (channels_last) {
    strides = strides_in_format(shape, MemoryFormat::ChannelsLast, "output_strides");
  } else if (same_dense) {
    strides = first->strides();
  } else {
    return false;
  }
  return true;
}

}  // namespace

Shape output_strides(const Shape& shape, const std::vector<Tensor>& inputs) {
  Shape strides;
  if (common_layout(shape, inputs, strides)) return strides;
  const int64_t ndim = static_cast<int64_t>(shape.size());
  std::vector<Shape> operand_strides;
  for (const Tensor& t : inputs) {
    if (t.defined()) operand_strides.push_back(broadcast_strides(t, shape));
  }
  // TensorIterator's reorder_dimensions: perm[0] is the innermost dim. > 0: dim0 belongs
  // outside dim1; < 0: inside; 0: no input decides.
  auto compare = [&](int64_t dim0, int64_t dim1) {
    for (const Shape& s : operand_strides) {
      if (s[dim0] == 0 || s[dim1] == 0) continue;
      if (s[dim0] < s[dim1]) return -1;
      if (s[dim0] > s[dim1]) return 1;
      if (shape[dim0] > shape[dim1]) return 1;
    }
    return 0;
  };
  std::vector<int64_t> perm(ndim);
  std::iota(perm.rbegin(), perm.rend(), 0);
  for (int64_t i = 1; i < ndim; ++i) {
    int64_t dim1 = i;
    for (int64_t dim0 = i - 1; dim0 >= 0; --dim0) {
      const int comparison = compare(perm[dim0], perm[dim1]);
      if (comparison > 0) {
        std::swap(perm[dim0], perm[dim1]);
        dim1 = dim0;
      } else if (comparison < 0) {
        break;
      }
    }
  }
  strides.assign(ndim, 0);
  int64_t stride = 1;
  for (int64_t d : perm) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return strides;
}

}  // namespace brisk::iter
