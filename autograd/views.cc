// View ops (sharing storage with their input), copies and conversions. A view of a tensor
// that requires grad is marked as such: modifying it in place is refused, because its
// base's history would not see the change.
#include "autograd/backward_ops.h"
#include "autograd/ops.h"
#include "autograd/record.h"
#include "tensor/autograd_meta.h"
#include "tensor/native/ops.h"

namespace brisk {

using autograd::BackwardArgs;
using autograd::BackwardFn;
using autograd::record;
using autograd::TensorList;

namespace {

Tensor record_view(const char* name, Tensor out, const Tensor& base, BackwardFn fn) {
  out = record(name, std::move(out), {base}, {}, std::move(fn));
  if (out.requires_grad() && out.storage() == base.storage()) out.autograd_meta().is_view = true;
  return out;
}

// For the ops whose backward only restores the input's shape.
BackwardFn reshape_back(const Shape& shape) {
  return [shape](const BackwardArgs& g) -> TensorList { return {g.grad().reshape(shape)}; };
}

}  // namespace

Tensor Tensor::view(const Shape& shape) const {
  return record_view("ViewBackward", native::view(*this, shape), *this, reshape_back(sizes()));
}

Tensor Tensor::reshape(const Shape& shape) const {
  return record_view("ReshapeBackward", native::reshape(*this, shape), *this, reshape_back(sizes()));
}

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  return record_view("FlattenBackward", native::flatten(*this, start_dim, end_dim), *this, reshape_back(sizes()));
}

Tensor Tensor::squeeze() const {
  return record_view("SqueezeBackward", native::squeeze(*this, std::nullopt), *this, reshape_back(sizes()));
}

Tensor Tensor::squeeze(int64_t dim) const {
  return record_view("SqueezeBackward", native::squeeze(*this, dim), *this, reshape_back(sizes()));
}

Tensor Tensor::unsqueeze(int64_t dim) const {
  return record_view("UnsqueezeBackward", native::unsqueeze(*this, dim), *this, reshape_back(sizes()));
}

Tensor Tensor::permute(const std::vector<int64_t>& dims) const {
  Tensor out = native::permute(*this, dims);
  std::vector<int64_t> inverse(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) inverse[wrap_dim(dims[i], dim(), "permute")] = static_cast<int64_t>(i);
  return record_view("PermuteBackward", out, *this,
                     [inverse](const BackwardArgs& g) -> TensorList { return {g.grad().permute(inverse)}; });
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  return record_view("TransposeBackward", native::transpose(*this, dim0, dim1), *this,
                     [dim0, dim1](const BackwardArgs& g) -> TensorList { return {g.grad().transpose(dim0, dim1)}; });
}

Tensor Tensor::t() const {
  BRISK_CHECK(dim() <= 2, "t: expects a tensor with <= 2 dimensions, but got {}", describe());
  return dim() < 2 ? view(sizes()) : transpose(0, 1);
}

Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length) const {
  Tensor out = native::narrow(*this, dim, start, length);
  int64_t d = wrap_dim(dim, this->dim(), "narrow");
  int64_t begin = start < 0 ? start + size(d) : start;
  return record_view("NarrowBackward", out, *this,
                     [shape = sizes(), d, begin, length](const BackwardArgs& g) -> TensorList {
                       return {autograd::slice_backward(g.grad(), shape, d, begin, begin + length, 1)};
                     });
}

Tensor Tensor::slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) const {
  return record_view("SliceBackward", native::slice(*this, dim, start, end, step), *this,
                     [shape = sizes(), dim, start, end, step](const BackwardArgs& g) -> TensorList {
                       return {autograd::slice_backward(g.grad(), shape, dim, start, end, step)};
                     });
}

// select is the slice [index, index + 1) without its dim.
Tensor Tensor::select(int64_t dim, int64_t index) const {
  Tensor out = native::select(*this, dim, index);
  int64_t d = wrap_dim(dim, this->dim(), "select");
  int64_t i = index < 0 ? index + size(d) : index;
  return record_view("SelectBackward", out, *this, [shape = sizes(), d, i](const BackwardArgs& g) -> TensorList {
    return {autograd::slice_backward(g.grad().unsqueeze(d), shape, d, i, i + 1, 1)};
  });
}

Tensor Tensor::expand(const Shape& shape) const {
  return record_view(
      "ExpandBackward", native::expand(*this, shape), *this,
      [from = sizes()](const BackwardArgs& g) -> TensorList { return {autograd::sum_to(g.grad(), from)}; });
}

Tensor Tensor::contiguous(MemoryFormat format) const {
  if (is_contiguous(format)) return *this;
  return record("ContiguousBackward", native::contiguous(*this, format), {*this}, {},
                [](const BackwardArgs& g) -> TensorList { return {g.grad()}; });
}

Tensor Tensor::clone(MemoryFormat format) const {
  return record("CloneBackward", native::clone(*this, format), {*this}, {},
                [](const BackwardArgs& g) -> TensorList { return {g.grad()}; });
}

Tensor Tensor::to(DType dtype) const { return to(device(), dtype); }

Tensor Tensor::to(MemoryFormat memory_format) const {
  return memory_format == MemoryFormat::Preserve ? *this : contiguous(memory_format);
}

Tensor Tensor::to(Device device, bool non_blocking) const { return to(device, dtype(), non_blocking); }

// Returns the tensor itself when nothing changes, as PyTorch. The gradient goes back to the
// input's device and dtype; a conversion to a non-floating dtype has none.
Tensor Tensor::to(Device device, DType dtype, bool non_blocking) const {
  if (device == this->device() && dtype == this->dtype()) return *this;
  Tensor out = native::to(*this, device, dtype, non_blocking);
  if (!brisk::is_floating_point(dtype)) return out;
  return record("ToCopyBackward", out, {*this}, {},
                [from_device = this->device(), from_dtype = this->dtype()](const BackwardArgs& g) -> TensorList {
                  return {g.grad().to(from_device, from_dtype)};
                });
}

}  // namespace brisk
