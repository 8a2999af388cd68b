// Joining, splitting and indexing.
#include "autograd/autocast.h"
#include "autograd/ops.h"
#include "autograd/record.h"
#include "tensor/autograd_meta.h"
#include "tensor/native/ops.h"

namespace brisk {

using autograd::BackwardArgs;
using autograd::record;
using autograd::TensorList;

Tensor cat(const std::vector<Tensor>& tensors_in, int64_t dim) {
  autograd::AutocastInputList autocast_inputs(autograd::AutocastOp::cat, tensors_in);
  const std::vector<Tensor>& tensors = autocast_inputs.tensors();
  Tensor out = native::cat(tensors, dim);
  int64_t d = wrap_dim(dim, out.dim(), "cat");
  std::vector<int64_t> lengths;
  for (const Tensor& t : tensors) lengths.push_back(t.size(d));
  return record("CatBackward", out, tensors, {}, [d, lengths](const BackwardArgs& g) -> TensorList {
    TensorList grads;
    int64_t start = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
      grads.push_back(g.needs_grad[i] ? g.grad().narrow(d, start, lengths[i]) : Tensor());
      start += lengths[i];
    }
    return grads;
  });
}

Tensor stack(const std::vector<Tensor>& tensors_in, int64_t dim) {
  autograd::AutocastInputList autocast_inputs(autograd::AutocastOp::stack, tensors_in);
  const std::vector<Tensor>& tensors = autocast_inputs.tensors();
  Tensor out = native::stack(tensors, dim);
  int64_t d = wrap_dim(dim, out.dim(), "stack");
  return record("StackBackward", out, tensors, {}, [d](const BackwardArgs& g) -> TensorList {
    TensorList grads;
    for (size_t i = 0; i < g.needs_grad.size(); ++i) {
      grads.push_back(g.needs_grad[i] ? g.grad().select(d, static_cast<int64_t>(i)) : Tensor());
    }
    return grads;
  });
}

std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& split_sizes, int64_t dim) {
  int64_t d = wrap_dim(dim, x.dim(), "split");
  TensorList outs = record("SplitBackward", native::split(x, split_sizes, d), {x}, {},
                           [d](const BackwardArgs& g) -> TensorList { return {cat(g.grads, d)}; });
  for (Tensor& out : outs) {
    if (out.requires_grad()) out.autograd_meta().is_view = true;
  }
  return outs;
}

std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim) {
  int64_t d = wrap_dim(dim, x.dim(), "split");
  int64_t length = x.size(d);
  BRISK_CHECK(split_size > 0 || (split_size == 0 && length == 0),
              "split: split_size must be positive, got {} for tensor {}", split_size, x.describe());
  std::vector<int64_t> sizes;
  for (int64_t start = 0; start < length; start += split_size) sizes.push_back(std::min(split_size, length - start));
  if (sizes.empty()) sizes.push_back(0);
  return split(x, sizes, d);
}

std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim) {
  BRISK_CHECK(chunks > 0, "chunk: number of chunks must be positive, got {}", chunks);
  int64_t length = x.size(wrap_dim(dim, x.dim(), "chunk"));
  return split(x, std::max<int64_t>((length + chunks - 1) / chunks, 1), dim);
}

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  Tensor out = native::index_select(x, dim, index);
  int64_t d = wrap_dim(dim, x.dim(), "index_select");
  return record("IndexSelectBackward", out, {x}, {index}, [d, shape = x.sizes()](const BackwardArgs& g) -> TensorList {
    // index_add as a scatter_add whose index repeats the selected position along
    // every other dim.
    const Tensor& grad = g.grad();
    Shape index_shape(grad.dim(), 1);
    if (grad.dim() > 0) index_shape[d] = grad.size(d);
    Tensor index = g.saved[0].reshape(index_shape).expand(grad.sizes());
    return {scatter_add(zeros(shape, grad.options()), d, index, grad)};
  });
}

Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) {
  Tensor out = native::gather(x, dim, index);
  int64_t d = wrap_dim(dim, x.dim(), "gather");
  return record("GatherBackward", out, {x}, {index}, [d, shape = x.sizes()](const BackwardArgs& g) -> TensorList {
    return {scatter_add(zeros(shape, g.grad().options()), d, g.saved[0], g.grad())};
  });
}

Tensor scatter_add(const Tensor& x_in, int64_t dim, const Tensor& index, const Tensor& src_in) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::scatter_add, x_in, src_in);
  const Tensor &x = autocast_inputs[0], &src = autocast_inputs[1];
  Tensor out = native::scatter_add(x, dim, index, src);
  int64_t d = wrap_dim(dim, x.dim(), "scatter_add");
  return record("ScatterAddBackward", out, {x, src}, {index}, [d](const BackwardArgs& g) -> TensorList {
    return {g.grad(), g.needs_grad[1] ? gather(g.grad(), d, g.saved[0]) : Tensor()};
  });
}

Tensor one_hot(const Tensor& indices, int64_t num_classes) { return native::one_hot(indices, num_classes); }

}  // namespace brisk
