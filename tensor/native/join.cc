// Joining and splitting along a dim: cat and stack write each input into a slice of one new
// tensor; split returns views.
#include "tensor/native/ops.h"

namespace brisk::native {

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  BRISK_CHECK(!tensors.empty(), "cat: expected a non-empty list of tensors");
  Device device = common_device("cat", tensors);
  DType dtype = tensors[0].dtype();
  // As in PyTorch, 1-D tensors with no elements are skipped whatever the others' shapes.
  std::vector<size_t> used;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    dtype = promote_types(dtype, t.dtype());
    BRISK_CHECK(t.dim() > 0, "cat: zero-dimensional tensor (at position {}) cannot be concatenated", i);
    if (!(t.dim() == 1 && t.numel() == 0)) used.push_back(i);
  }
  TensorOptions options = TensorOptions(dtype).device(device);
  if (used.empty()) return empty({0}, options);
  const Tensor& first = tensors[used[0]];
  int64_t d = wrap_dim(dim, first.dim(), "cat");
  Shape shape = first.sizes();
  shape[d] = 0;
  for (size_t i : used) {
    const Tensor& t = tensors[i];
    BRISK_CHECK(t.dim() == first.dim(),
                "cat: tensors must have the same number of dims, got shapes {} (tensor {}) and {} (tensor {})",
                first.sizes(), used[0], t.sizes(), i);
    for (int64_t k = 0; k < t.dim(); ++k) {
      BRISK_CHECK(k == d || t.size(k) == first.size(k),
                  "cat: sizes of tensors must match except in dim {}: expected size {} but got size {} for tensor {} "
                  "in dim {} (shapes {} and {})",
                  d, first.size(k), t.size(k), i, k, first.sizes(), t.sizes());
    }
    shape[d] += t.size(d);
  }
  // As PyTorch: the memory format every input suggests, else contiguous.
  MemoryFormat format = first.suggest_memory_format();
  for (size_t i : used) {
    if (tensors[i].suggest_memory_format() != format) format = MemoryFormat::Contiguous;
  }
  Tensor out = empty(shape, options.memory_format(format));
  int64_t offset = 0;
  for (size_t i : used) {
    Tensor part = narrow(out, d, offset, tensors[i].size(d));
    copy_(part, tensors[i]);
    offset += tensors[i].size(d);
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  BRISK_CHECK(!tensors.empty(), "stack: expected a non-empty list of tensors");
  int64_t d = wrap_dim(dim, tensors[0].dim() + 1, "stack");
  std::vector<Tensor> parts;
  for (size_t i = 0; i < tensors.size(); ++i) {
    BRISK_CHECK(tensors[i].sizes() == tensors[0].sizes(),
                "stack: expects each tensor to be equal size, but got {} at entry 0 and {} at entry {}",
                tensors[0].sizes(), tensors[i].sizes(), i);
    parts.push_back(unsqueeze(tensors[i], d));
  }
  return cat(parts, d);
}

std::vector<Tensor> split(const Tensor& t, const std::vector<int64_t>& sizes, int64_t dim) {
  BRISK_CHECK(t.dim() > 0, "split: cannot split a 0-dim tensor");
  int64_t d = wrap_dim(dim, t.dim(), "split");
  int64_t total = 0;
  for (int64_t s : sizes) {
    BRISK_CHECK(s >= 0, "split: split sizes {} contain a negative size", sizes);
    total += s;
  }
  BRISK_CHECK(total == t.size(d), "split: split sizes {} sum to {}, but dim {} of the tensor of shape {} has size {}",
              sizes, total, d, t.sizes(), t.size(d));
  std::vector<Tensor> out;
  int64_t offset = 0;
  for (int64_t s : sizes) {
    out.push_back(narrow(t, d, offset, s));
    offset += s;
  }
  return out;
}

}  // namespace brisk::native
