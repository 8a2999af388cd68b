// Tensor::index, Tensor::index_put_ and masked_select: PyTorch's indexing. Integers, slices,
// None, Ellipsis and bools are views (select, slice, unsqueeze, narrow); one index tensor (a
// bool mask or integer positions) picks along the dims it covers with index_select, so the
// gradients are those of the views and of index_select. index_put_ writes through the same
// views, as an in-place op on the tensor itself.
#include <numeric>
#include <type_traits>

#include "autograd/grad_mode.h"
#include "autograd/inplace.h"
#include "autograd/ops.h"
#include "autograd/record.h"
#include "tensor/indexing.h"
#include "tensor/native/ops.h"

namespace brisk {

using autograd::BackwardArgs;
using autograd::TensorList;
using indexing::TensorIndex;
using Kind = TensorIndex::Kind;
using Indices = std::vector<TensorIndex>;

namespace {

bool is_mask(const Tensor& t) { return t.dtype() == kBool || t.dtype() == kUInt8; }

// A 0-dim integer tensor indexes as its integer and a 0-dim bool tensor as its bool, as in
// libtorch; any other tensor is an index tensor, of which at most one is supported.
Indices resolve(const Indices& given, const char* op) {
  Indices indices;
  int64_t tensors = 0;
  for (const TensorIndex& index : given) {
    const Tensor& t = index.tensor();
    if (index.kind() == Kind::kTensor) {
      BRISK_CHECK(t.defined(), "{}: an index tensor is undefined", op);
      BRISK_CHECK(is_integral(t.dtype(), true),
                  "{}: tensors used as indices must be long, int, byte or bool tensors, got {}", op, t.describe());
    }
    if (index.kind() != Kind::kTensor || t.dtype() == kUInt8 || t.dim() > 0) {
      tensors += index.kind() == Kind::kTensor;
      indices.push_back(index);
    } else if (t.dtype() == kBool) {
      indices.emplace_back(t.item<bool>());
    } else {
      indices.emplace_back(t.to(kInt64).item<int64_t>());
    }
  }
  BRISK_CHECK(tensors <= 1,
              "{}: indexing with {} index tensors is not supported (advanced indexing with several tensors); index "
              "with one tensor at a time",
              op, tensors);
  return indices;
}

// The dims of the indexed tensor that an index uses up.
int64_t consumed_dims(const TensorIndex& index) {
  switch (index.kind()) {
    case Kind::kInteger:
    case Kind::kSlice: return 1;
    case Kind::kTensor: return is_mask(index.tensor()) ? index.tensor().dim() : 1;
    default: return 0;
  }
}

// The indices other than the index tensor, applied to `self` as views; the index tensor, if
// any, is left with the dim of `view` where the dims it covers start.
struct Sliced {
  Tensor view;
  Tensor index;
  int64_t index_dim = 0;
};

Sliced apply_views(const Tensor& self, const Indices& indices, const char* op) {
  int64_t specified = 0;
  for (const TensorIndex& index : indices) specified += consumed_dims(index);
  BRISK_CHECK(specified <= self.dim(), "{}: too many indices for tensor of dimension {} ({} given), tensor {}", op,
              self.dim(), specified, self.describe());
  Sliced s;
  s.view = self;
  int64_t dim = 0;
  for (const TensorIndex& index : indices) {
    switch (index.kind()) {
      case Kind::kInteger: s.view = s.view.select(dim, index.integer()); break;
      case Kind::kSlice: {
        const indexing::Slice& slice = index.slice();
        BRISK_CHECK(slice.step() > 0, "{}: slice step must be greater than zero, got {}", op, slice.step());
        s.view = s.view.slice(dim++, slice.start(), slice.stop(), slice.step());
        break;
      }
      case Kind::kNone: s.view = s.view.unsqueeze(dim++); break;
      case Kind::kBoolean:
        // x[True] adds a dim of size 1, x[False] one of size 0.
        s.view = s.view.unsqueeze(dim);
        if (!index.boolean()) s.view = s.view.narrow(dim, 0, 0);
        ++dim;
        break;
      // Each Ellipsis skips the dims no index names (PyTorch accepts several, unlike NumPy).
      case Kind::kEllipsis: dim += self.dim() - specified; break;
      case Kind::kTensor:
        s.index = index.tensor();
        s.index_dim = dim;
        dim += consumed_dims(index);
        break;
    }
  }
  return s;
}

// What the index tensor of `s` picks: the places within the dims it covers, taken as one dim
// in row-major order (checked, negative positions wrapped), read on the host.
struct Picked {
  Shape merged;                    // the view's shape with the covered dims merged into one
  Shape result;                    // the view's shape with the covered dims replaced by the picked ones
  std::vector<int64_t> positions;  // along the merged dim
};

Picked pick(const Sliced& s, const char* op) {
  const Shape& shape = s.view.sizes();
  const int64_t d = s.index_dim;
  const bool mask = is_mask(s.index);
  const int64_t covered = mask ? s.index.dim() : 1;
  Shape before(shape.begin(), shape.begin() + d), after(shape.begin() + d + covered, shape.end());
  Picked p;
  Shape picked_shape;
  int64_t places = 1;
  if (mask) {
    for (int64_t i = 0; i < covered; ++i) {
      BRISK_CHECK(s.index.size(i) == shape[d + i],
                  "{}: the shape of the mask {} at index {} does not match the shape of the indexed tensor {} at "
                  "index {}",
                  op, s.index.sizes(), i, shape, d + i);
      places *= shape[d + i];
    }
    std::vector<bool> flags = s.index.to(kBool).to_vector<bool>();
    for (size_t i = 0; i < flags.size(); ++i) {
      if (flags[i]) p.positions.push_back(static_cast<int64_t>(i));
    }
    picked_shape = {static_cast<int64_t>(p.positions.size())};
  } else {
    places = shape[d];
    for (int64_t position : s.index.to(kInt64).to_vector<int64_t>()) {
      BRISK_CHECK(position >= -places && position < places,
                  "{}: index {} is out of bounds for dimension {} with size {}", op, position, d, places);
      p.positions.push_back(position < 0 ? position + places : position);
    }
    picked_shape = s.index.sizes();
  }
  p.merged = before;
  p.merged.push_back(places);
  p.merged.insert(p.merged.end(), after.begin(), after.end());
  p.result = before;
  p.result.insert(p.result.end(), picked_shape.begin(), picked_shape.end());
  p.result.insert(p.result.end(), after.begin(), after.end());
  return p;
}

Tensor positions_tensor(const std::vector<int64_t>& positions, Device device) {
  return native::to(native::from_vector(positions, {static_cast<int64_t>(positions.size())}, kInt64), device, kInt64);
}

Tensor read(const Sliced& s, const char* op) {
  if (!s.index.defined()) return s.view;
  Picked p = pick(s, op);
  Tensor merged = s.view.reshape(p.merged);
  return index_select(merged, s.index_dim, positions_tensor(p.positions, s.view.device())).reshape(p.result);
}

// PyTorch drops a value's leading dims of size 1 before broadcasting it to the indexed shape.
Tensor drop_leading_ones(const Tensor& values) {
  Shape shape = values.sizes();
  size_t first = 0;
  while (first < shape.size() && shape[first] == 1) ++first;
  return native::reshape(values, Shape(shape.begin() + first, shape.end()));
}

void check_broadcast(const Shape& value, const Shape& target, const char* op) {
  bool fits = value.size() <= target.size();
  for (size_t i = 1; fits && i <= value.size(); ++i) {
    int64_t v = value[value.size() - i];
    fits = v == 1 || v == target[target.size() - i];
  }
  BRISK_CHECK(fits, "{}: shape mismatch: value tensor of shape {} cannot be broadcast to indexing result of shape {}",
              op, value, target);
}

// Writes `values` into the places `s` picks, through its view of the indexed tensor. The picked
// rows of the merged view are replaced by a gather from [view rows, value rows], so a place
// picked twice gets the last value written to it, as PyTorch on the CPU.
void write(Sliced& s, const Tensor& values, const char* op) {
  Tensor src = drop_leading_ones(values);
  if (!s.index.defined()) {
    check_broadcast(src.sizes(), s.view.sizes(), op);
    native::copy_(s.view, src);
    return;
  }
  BRISK_CHECK(src.dtype() == s.view.dtype(),
              "{}: index_put_ with an index tensor requires the source and destination dtypes match, got {} for "
              "the destination and {} for the source",
              op, s.view.dtype(), src.dtype());
  Picked p = pick(s, op);
  check_broadcast(src.sizes(), p.result, op);
  const int64_t d = s.index_dim, places = p.merged[d];
  Shape rows_shape = p.merged;
  rows_shape[d] = static_cast<int64_t>(p.positions.size());
  Tensor on_device = native::to(src, s.view.device(), src.dtype());
  Tensor rows = native::reshape(native::contiguous(native::expand(on_device, p.result)), rows_shape);
  std::vector<int64_t> source(places);
  std::iota(source.begin(), source.end(), 0);
  for (size_t j = 0; j < p.positions.size(); ++j) source[p.positions[j]] = places + static_cast<int64_t>(j);
  Tensor combined = native::cat({native::reshape(s.view, p.merged), rows}, d);
  Tensor updated = native::index_select(combined, d, positions_tensor(source, s.view.device()));
  native::copy_(s.view, native::reshape(updated, s.view.sizes()));
}

// index_put_'s history: the indexed places of self take no gradient from before the write; the
// values get the gradient of the places they were written to. The index tensor is saved, and
// put back in its place by the backward.
void record_index_put(Tensor& self, const Indices& indices, const Tensor& values) {
  Tensor index_tensor;
  for (const TensorIndex& index : indices) {
    if (index.kind() == Kind::kTensor) index_tensor = index.tensor();
  }
  auto backward = [indices, values_dim = values.defined() ? values.dim() : 0](const BackwardArgs& g) -> TensorList {
    Indices at = indices;
    for (TensorIndex& index : at) {
      if (index.kind() == Kind::kTensor) index = g.saved[0];
    }
    TensorList grads{g.needs_grad[0] ? g.grad().clone().index_put_(at, 0) : Tensor()};
    if (g.needs_grad.size() > 1 && g.needs_grad[1]) {
      Tensor grad = g.grad().index(at);
      Shape shape = grad.sizes();
      if (static_cast<int64_t>(shape.size()) < values_dim) {
        shape.insert(shape.begin(), static_cast<size_t>(values_dim) - shape.size(), 1);
      }
      grads.push_back(grad.reshape(shape));
    }
    return grads;
  };
  if (values.defined()) {
    autograd::rebase_history("IndexPutBackward", self, {self, values}, {index_tensor}, backward);
  } else {
    autograd::rebase_history("IndexPutBackward", self, {self}, {index_tensor}, backward);
  }
}

template <typename Values>
Tensor& index_put(Tensor& self, const Indices& given, const Values& values) {
  const char* op = "index_put_";
  Indices indices = resolve(given, op);
  autograd::modify(self, op, [&] {
    NoGradGuard no_grad;
    Sliced s = apply_views(self, indices, op);
    if constexpr (std::is_same_v<Values, Scalar>) {
      if (!s.index.defined()) {
        native::fill_(s.view, values);
      } else {
        write(s, native::scalar_tensor(values, self.dtype(), self.device()), op);
      }
    } else {
      write(s, values, op);
    }
  });
  if constexpr (std::is_same_v<Values, Scalar>) {
    record_index_put(self, indices, Tensor());
  } else {
    record_index_put(self, indices, values);
  }
  return self;
}

}  // namespace

Tensor Tensor::index(const std::vector<TensorIndex>& indices) const {
  return read(apply_views(*this, resolve(indices, "index"), "index"), "index");
}
Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const { return index(Indices(indices)); }

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, const Tensor& values) {
  return index_put(*this, indices, values);
}
Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, Scalar value) {
  return index_put(*this, indices, value);
}
Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& values) {
  return index_put(*this, Indices(indices), values);
}
Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, Scalar value) {
  return index_put(*this, Indices(indices), value);
}

Tensor masked_select(const Tensor& input, const Tensor& mask) {
  BRISK_CHECK(mask.dtype() == kBool, "masked_select: expected a bool mask, got {}", mask.describe());
  Shape shape = broadcast_shapes(input.sizes(), mask.sizes(), "masked_select");
  return input.expand(shape).index({mask.expand(shape)});
}
Tensor Tensor::masked_select(const Tensor& mask) const { return brisk::masked_select(*this, mask); }

}  // namespace brisk
