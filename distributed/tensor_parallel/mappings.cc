#include "distributed/tensor_parallel/mappings.h"

#include "autograd/record.h"
#include "distributed/tensor_parallel/uneven_split.h"
#include "tensor/native/ops.h"

namespace brisk::dist::tp {

// The functions record their backward with autograd::record rather than autograd::Function:
// the backward needs the group, which a closure holds and AutogradContext::saved_data cannot.
// Nothing else is captured but sizes; no tensor is saved.
using autograd::BackwardArgs;
using autograd::record;
using autograd::TensorList;

namespace {

// The group's own methods rather than the free functions: those need init_process_group even
// when given a group, and a group may be made without it (thread ranks in tests).
ProcessGroup& group_or_default(const GroupPtr& group) { return group ? *group : *default_group(); }

int64_t wrapped(const Tensor& x, int64_t dim) { return dim < 0 ? dim + x.dim() : dim; }

}  // namespace

Tensor copy_to_region(const Tensor& x, const GroupPtr& group) {
  return record("CopyToRegionBackward", x, {x}, {},
                [group](const BackwardArgs& a) -> TensorList { return {reduce_from_region(a.grad(), group)}; });
}

Tensor reduce_from_region(const Tensor& x, const GroupPtr& group) {
  Tensor sum = native::clone(x, MemoryFormat::Contiguous);
  group_or_default(group).all_reduce(sum, ReduceOp::SUM)->wait();
  return record("ReduceFromRegionBackward", sum, {x}, {},
                [group](const BackwardArgs& a) -> TensorList { return {copy_to_region(a.grad(), group)}; });
}

Tensor scatter_to_region(const Tensor& x, const GroupPtr& group, int64_t dim) {
  const int64_t d = wrapped(x, dim);
  const int64_t full_size = x.size(d);
  Tensor part = local_part(x, d, group_or_default(group));
  return record("ScatterToRegionBackward", part, {x}, {}, [group, d, full_size](const BackwardArgs& a) -> TensorList {
    return {gather_from_region(a.grad(), group, d, full_size)};
  });
}

Tensor gather_from_region(const Tensor& x, const GroupPtr& group, int64_t dim, int64_t full_size) {
  const int64_t d = wrapped(x, dim);
  Tensor full = all_gather_along(x, d, group_or_default(group), full_size);
  return record("GatherFromRegionBackward", full, {x}, {},
                [group, d](const BackwardArgs& a) -> TensorList { return {scatter_to_region(a.grad(), group, d)}; });
}

Tensor gather_from_sequence_region(const Tensor& x, const GroupPtr& group, int64_t full_size) {
  Tensor full = all_gather_along(x, 0, group_or_default(group), full_size);
  return record("GatherFromSequenceRegionBackward", full, {x}, {}, [group](const BackwardArgs& a) -> TensorList {
    return {reduce_scatter_to_sequence_region(a.grad(), group)};
  });
}

Tensor reduce_scatter_to_sequence_region(const Tensor& x, const GroupPtr& group) {
  const int64_t full_size = x.size(0);
  Tensor part = reduce_scatter_along(x, 0, group_or_default(group));
  return record("ReduceScatterToSequenceRegionBackward", part, {x}, {},
                [group, full_size](const BackwardArgs& a) -> TensorList {
                  return {gather_from_sequence_region(a.grad(), group, full_size)};
                });
}

}  // namespace brisk::dist::tp
