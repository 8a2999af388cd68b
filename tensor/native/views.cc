// Views: new sizes, strides and offset over the same Storage; nothing is copied (except
// by reshape, when no view can express the new shape).
#include <algorithm>
#include <numeric>

#include "tensor/native/ops.h"

namespace brisk::native {
namespace {

Tensor make_view(const Tensor& t, Shape sizes, Shape strides, int64_t offset) {
  return Tensor(std::make_shared<TensorImpl>(t.storage(), std::move(sizes), std::move(strides), offset, t.dtype()));
}

// Strides that let a tensor of (sizes, strides) be viewed as `shape`, or nothing when some new
// dim would span memory that is not evenly strided (PyTorch's computeStride).
std::optional<Shape> view_strides(const Shape& sizes, const Shape& strides, const Shape& shape) {
  if (sizes.empty()) return Shape(shape.size(), 1);
  int64_t numel = shape_numel(sizes);
  if (numel == 0) {
    if (sizes == shape) return strides;
    return contiguous_strides(shape);
  }
  Shape out(shape.size());
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  // Walk the old dims from the back, in chunks whose dims are mutually contiguous; each chunk
  // must be covered exactly by a run of new dims.
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1;
  int64_t view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    bool chunk_ends = d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride);
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
      out[view_d] = view_numel * chunk_base_stride;
      view_numel *= shape[view_d];
      --view_d;
    }
    if (view_numel != tensor_numel) return std::nullopt;
    if (d > 0) {
      chunk_base_stride = strides[d - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

}  // namespace

Tensor as_strided(const Tensor& t, const Shape& sizes, const Shape& strides, int64_t offset) {
  BRISK_CHECK(sizes.size() == strides.size(), "as_strided: sizes {} and strides {} have different lengths", sizes,
              strides);
  BRISK_CHECK(offset >= 0, "as_strided: negative storage offset {} for a tensor of {}", offset, t.describe());
  int64_t last = offset;
  bool empty = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    BRISK_CHECK(sizes[i] >= 0, "as_strided: negative size in {}", sizes);
    BRISK_CHECK(strides[i] >= 0, "as_strided: negative stride in {} is not supported", strides);
    empty = empty || sizes[i] == 0;
    if (sizes[i] > 0) last += (sizes[i] - 1) * strides[i];
  }
  int64_t capacity = static_cast<int64_t>(t.storage()->nbytes() / t.element_size());
  BRISK_CHECK(empty || last < capacity,
              "as_strided: sizes {}, strides {} and offset {} reach element {}, beyond the storage of {} elements",
              sizes, strides, offset, last, capacity);
  return make_view(t, sizes, strides, offset);
}

Tensor alias(const Tensor& t) { return make_view(t, t.sizes(), t.strides(), t.offset()); }

Tensor view(const Tensor& t, const Shape& shape) {
  Shape sizes = infer_size(shape, t.numel(), "view");
  auto strides = view_strides(t.sizes(), t.strides(), sizes);
  BRISK_CHECK(strides.has_value(),
              "view: view size {} is not compatible with input tensor's size {} and stride {} (at least one "
              "dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
              shape, t.sizes(), t.strides());
  return make_view(t, std::move(sizes), std::move(*strides), t.offset());
}

Tensor reshape(const Tensor& t, const Shape& shape) {
  Shape sizes = infer_size(shape, t.numel(), "reshape");
  if (auto strides = view_strides(t.sizes(), t.strides(), sizes)) {
    return make_view(t, std::move(sizes), std::move(*strides), t.offset());
  }
  Tensor dense = contiguous(t);
  Shape strides = contiguous_strides(sizes);
  return make_view(dense, std::move(sizes), std::move(strides), dense.offset());
}

Tensor permute(const Tensor& t, const std::vector<int64_t>& dims) {
  int64_t ndim = t.dim();
  BRISK_CHECK(static_cast<int64_t>(dims.size()) == ndim,
              "permute: dims {} has {} entries but the tensor of shape {} has {} dims", dims, dims.size(), t.sizes(),
              ndim);
  Shape sizes(ndim), strides(ndim);
  std::vector<bool> seen(ndim, false);
  for (int64_t i = 0; i < ndim; ++i) {
    int64_t d = wrap_dim(dims[i], ndim, "permute");
    BRISK_CHECK(!seen[d], "permute: dims {} repeat dim {} (tensor of shape {})", dims, d, t.sizes());
    seen[d] = true;
    sizes[i] = t.sizes()[d];
    strides[i] = t.strides()[d];
  }
  return make_view(t, std::move(sizes), std::move(strides), t.offset());
}

Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1) {
  int64_t d0 = wrap_dim(dim0, t.dim(), "transpose");
  int64_t d1 = wrap_dim(dim1, t.dim(), "transpose");
  Shape sizes = t.sizes(), strides = t.strides();
  if (t.dim() > 0) {
    std::swap(sizes[d0], sizes[d1]);
    std::swap(strides[d0], strides[d1]);
  }
  return make_view(t, std::move(sizes), std::move(strides), t.offset());
}

Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  BRISK_CHECK(t.dim() > 0, "narrow: cannot be applied to a 0-dim tensor");
  int64_t d = wrap_dim(dim, t.dim(), "narrow");
  int64_t size = t.sizes()[d];
  BRISK_CHECK(start >= -size && start <= size,
              "narrow: start {} is out of range for dim {} of size {} (tensor of shape {})", start, d, size, t.sizes());
  if (start < 0) start += size;
  BRISK_CHECK(length >= 0 && start + length <= size,
              "narrow: start {} + length {} exceeds dim {} of size {} (tensor of shape {})", start, length, d, size,
              t.sizes());
  Shape sizes = t.sizes();
  sizes[d] = length;
  return make_view(t, std::move(sizes), t.strides(), t.offset() + start * t.strides()[d]);
}

Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  BRISK_CHECK(t.dim() > 0, "slice: cannot be applied to a 0-dim tensor");
  BRISK_CHECK(step > 0, "slice: step must be positive, got {}", step);
  int64_t d = wrap_dim(dim, t.dim(), "slice");
  int64_t size = t.sizes()[d];
  // Python slicing: negative bounds count from the end, then both clamp into [0, size].
  auto clamp_bound = [size](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + size : v, 0, size); };
  int64_t lo = start ? clamp_bound(*start) : 0;
  int64_t hi = end ? clamp_bound(*end) : size;
  hi = std::max(hi, lo);
  Shape sizes = t.sizes(), strides = t.strides();
  sizes[d] = (hi - lo + step - 1) / step;
  strides[d] *= step;
  return make_view(t, std::move(sizes), std::move(strides), t.offset() + lo * t.strides()[d]);
}

Tensor select(const Tensor& t, int64_t dim, int64_t index) {
  BRISK_CHECK(t.dim() > 0, "select: cannot be applied to a 0-dim tensor");
  int64_t d = wrap_dim(dim, t.dim(), "select");
  int64_t size = t.sizes()[d];
  BRISK_CHECK(index >= -size && index < size,
              "select: index {} is out of range for dim {} of size {} (tensor of shape {})", index, d, size, t.sizes());
  if (index < 0) index += size;
  Shape sizes = t.sizes(), strides = t.strides();
  int64_t offset = t.offset() + index * strides[d];
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return make_view(t, std::move(sizes), std::move(strides), offset);
}

Tensor expand(const Tensor& t, const Shape& shape) {
  int64_t ndim = static_cast<int64_t>(shape.size());
  int64_t tdim = t.dim();
  BRISK_CHECK(ndim >= tdim, "expand: the shape {} has fewer dims than the tensor of shape {}", shape, t.sizes());
  Shape sizes(ndim), strides(ndim);
  for (int64_t i = ndim - 1; i >= 0; --i) {
    int64_t d = i - (ndim - tdim);  // the tensor's dim aligned with i, < 0 for new leading dims
    int64_t size = d >= 0 ? t.sizes()[d] : 1;
    int64_t stride = d >= 0 ? t.strides()[d] : (i + 1 < ndim ? sizes[i + 1] * strides[i + 1] : 1);
    int64_t target = shape[i];
    if (target == -1) {
      BRISK_CHECK(d >= 0, "expand: size -1 is not allowed in the new leading dim {} of shape {} (tensor of shape {})",
                  i, shape, t.sizes());
      target = size;
    }
    BRISK_CHECK(target >= 0, "expand: invalid size {} in shape {}", target, shape);
    if (size != target) {
      BRISK_CHECK(size == 1,
                  "expand: the expanded size {} must match the existing size {} at non-singleton dim {}; target "
                  "shape {}, tensor shape {}",
                  target, size, i, shape, t.sizes());
      size = target;
      stride = 0;
    }
    sizes[i] = size;
    strides[i] = stride;
  }
  return make_view(t, std::move(sizes), std::move(strides), t.offset());
}

Tensor squeeze(const Tensor& t, std::optional<int64_t> dim) {
  Shape sizes, strides;
  int64_t only = dim ? wrap_dim(*dim, t.dim(), "squeeze") : -1;  // -1: every size-1 dim
  for (int64_t d = 0; d < t.dim(); ++d) {
    bool drop = t.sizes()[d] == 1 && (only < 0 || only == d);
    if (drop) continue;
    sizes.push_back(t.sizes()[d]);
    strides.push_back(t.strides()[d]);
  }
  return make_view(t, std::move(sizes), std::move(strides), t.offset());
}

Tensor unsqueeze(const Tensor& t, int64_t dim) {
  int64_t d = wrap_dim(dim, t.dim() + 1, "unsqueeze");
  Shape sizes = t.sizes(), strides = t.strides();
  int64_t stride = d < t.dim() ? sizes[d] * strides[d] : 1;
  sizes.insert(sizes.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return make_view(t, std::move(sizes), std::move(strides), t.offset());
}

Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim) {
  if (t.dim() == 0) return reshape(t, {1});
  int64_t start = wrap_dim(start_dim, t.dim(), "flatten");
  int64_t end = wrap_dim(end_dim, t.dim(), "flatten");
  BRISK_CHECK(start <= end, "flatten: start_dim {} comes after end_dim {} (tensor of shape {})", start_dim, end_dim,
              t.sizes());
  if (start == end) return alias(t);
  const Shape& in = t.sizes();
  Shape shape(in.begin(), in.begin() + start);
  shape.push_back(std::accumulate(in.begin() + start, in.begin() + end + 1, int64_t{1}, std::multiplies<>()));
  shape.insert(shape.end(), in.begin() + end + 1, in.end());
  return reshape(t, shape);
}

}  // namespace brisk::native
