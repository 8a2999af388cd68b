#include "distributed/nn/all_gather_with_grad.h"

#include <vector>

#include "autograd/record.h"
#include "tensor/native/ops.h"

namespace brisk::dist {

namespace {

using autograd::BackwardArgs;
using autograd::record;
using autograd::TensorList;

// The group's own methods rather than the free functions: those need init_process_group even
// when given a group, and a group may be made without it (thread ranks in tests).
ProcessGroup& group_or_default(const GroupPtr& group) { return group ? *group : *default_group(); }

// Rows of a contiguous [world, ...] tensor, as the list arguments of the collectives.
std::vector<Tensor> rows(const Tensor& stacked) {
  std::vector<Tensor> result;
  for (int64_t r = 0; r < stacked.size(0); ++r) result.push_back(native::select(stacked, 0, r));
  return result;
}

// This rank's row of the sum over ranks of `stacked` [world, ...]: all_gather_with_grad's
// backward, and (for double backward) its adjoint in turn.
Tensor sum_scatter(const Tensor& stacked, const GroupPtr& group) {
  Tensor inputs = stacked.contiguous();
  Tensor output = native::empty(Shape(inputs.sizes().begin() + 1, inputs.sizes().end()), inputs.options());
  group_or_default(group).reduce_scatter(output, rows(inputs), ReduceOp::SUM)->wait();
  return record("ReduceScatterBackward", output, {stacked}, {},
                [group](const BackwardArgs& a) -> TensorList { return {all_gather_with_grad(a.grad(), group)}; });
}

}  // namespace

Tensor all_gather_with_grad(const Tensor& input, const GroupPtr& group) {
  ProcessGroup& g = group_or_default(group);
  Tensor local = input.contiguous();
  Shape shape{g.size()};
  shape.insert(shape.end(), local.sizes().begin(), local.sizes().end());
  Tensor gathered = native::empty(shape, local.options());
  std::vector<Tensor> outputs = rows(gathered);
  g.all_gather(outputs, local)->wait();
  return record("AllGatherBackward", gathered, {input}, {},
                [group](const BackwardArgs& a) -> TensorList { return {sum_scatter(a.grad(), group)}; });
}

}  // namespace brisk::dist
