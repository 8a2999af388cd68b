// Indexing with int64 index tensors: index_select, gather, scatter_add and one_hot. As in
// PyTorch, a 0-dim operand counts as a 1-element 1-D one, so backends always see dim >= 1.
#include "tensor/backend.h"
#include "tensor/native/ops.h"

namespace brisk::native {
namespace {

void check_index(const char* op, const Tensor& t, const Tensor& index) {
  BRISK_CHECK(index.dtype() == kInt64, "{}: index must be int64, got {} (index shape {})", op, index.dtype(),
              index.sizes());
  BRISK_CHECK(index.device() == t.device(), "{}: index on {} but the tensor on {}", op, index.device(), t.device());
}

Tensor at_least_1d(const Tensor& t) { return t.dim() == 0 ? reshape(t, {1}) : t; }

// gather/scatter_add: index has self's number of dims and no larger sizes, except along dim
// (where the index values, not its size, are bounded by self).
void check_scatter_gather_shapes(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                                 const Tensor* src) {
  BRISK_CHECK(index.dim() == self.dim(), "{}: index of shape {} must have as many dims as the tensor of shape {}", op,
              index.sizes(), self.sizes());
  for (int64_t d = 0; d < index.dim(); ++d) {
    BRISK_CHECK(d == dim || index.size(d) <= self.size(d),
                "{}: index of shape {} is larger than the tensor of shape {} in dim {}", op, index.sizes(),
                self.sizes(), d);
    if (src) {
      BRISK_CHECK(index.size(d) <= src->size(d), "{}: index of shape {} is larger than src of shape {} in dim {}", op,
                  index.sizes(), src->sizes(), d);
    }
  }
}

}  // namespace

Tensor index_select(const Tensor& t, int64_t dim, const Tensor& index) {
  check_index("index_select", t, index);
  BRISK_CHECK(index.dim() <= 1, "index_select: index must be 0-D or 1-D, got shape {}", index.sizes());
  Tensor in = at_least_1d(t);
  int64_t d = wrap_dim(dim, in.dim(), "index_select");
  Shape shape = in.sizes();
  shape[d] = index.numel();
  Tensor out = empty(shape, t.options());
  backend_for(t.device()).index_select(out, in, d, reshape(index, {-1}));
  return t.dim() == 0 ? reshape(out, {}) : out;
}

Tensor gather(const Tensor& t, int64_t dim, const Tensor& index) {
  check_index("gather", t, index);
  Tensor in = at_least_1d(t), idx = at_least_1d(index);
  int64_t d = wrap_dim(dim, in.dim(), "gather");
  check_scatter_gather_shapes("gather", in, d, idx, nullptr);
  Tensor out = empty(index.sizes(), t.options());
  backend_for(t.device()).gather(at_least_1d(out), in, d, idx);
  return out;
}

Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_index("scatter_add", self, index);
  BRISK_CHECK(src.dtype() == self.dtype(), "scatter_add: src dtype {} must match the tensor's dtype {}", src.dtype(),
              self.dtype());
  BRISK_CHECK(src.device() == self.device(), "scatter_add: src on {} but the tensor on {}", src.device(),
              self.device());
  Tensor dst = at_least_1d(self), idx = at_least_1d(index), from = at_least_1d(src);
  BRISK_CHECK(from.dim() == dst.dim(), "scatter_add: src of shape {} must have as many dims as the tensor of shape {}",
              src.sizes(), self.sizes());
  int64_t d = wrap_dim(dim, dst.dim(), "scatter_add");
  check_scatter_gather_shapes("scatter_add", dst, d, idx, &from);
  backend_for(self.device()).scatter_add(dst, d, idx, from);
  return self;
}

Tensor scatter_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor out = clone(t);
  return scatter_add_(out, dim, index, src);
}

Tensor one_hot(const Tensor& indices, int64_t num_classes) {
  BRISK_CHECK(indices.dtype() == kInt64, "one_hot: expected int64 class values, got {} (shape {})", indices.dtype(),
              indices.sizes());
  BRISK_CHECK(num_classes >= -1, "one_hot: num_classes must be -1 (inferred) or non-negative, got {}", num_classes);
  TensorOptions options = TensorOptions(kInt64).device(indices.device());
  if (indices.numel() == 0) {
    BRISK_CHECK(num_classes >= 0, "one_hot: cannot infer the number of classes from an empty tensor of shape {}",
                indices.sizes());
  } else {
    int64_t lo = reduce(ReduceOp::Min, indices, {}, false).item<int64_t>();
    int64_t hi = reduce(ReduceOp::Max, indices, {}, false).item<int64_t>();
    BRISK_CHECK(lo >= 0, "one_hot: class values must be non-negative, got {}", lo);
    if (num_classes == -1) num_classes = hi + 1;
    BRISK_CHECK(hi < num_classes, "one_hot: class value {} is not smaller than num_classes {}", hi, num_classes);
  }
  Shape shape = indices.sizes();
  shape.push_back(num_classes);
  Tensor out = zeros(shape, options);
  Shape ones_shape = indices.sizes();
  ones_shape.push_back(1);
  return scatter_add_(out, -1, unsqueeze(indices, -1), ones(ones_shape, options));
}

}  // namespace brisk::native
