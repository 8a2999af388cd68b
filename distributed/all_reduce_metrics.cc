#include "distributed/all_reduce_metrics.h"

#include "distributed/distributed.h"
#include "tensor/error.h"
#include "tensor/native/ops.h"

namespace brisk::dist {

Tensor all_reduce_metrics(const Tensor& values, ReduceOp op, const std::shared_ptr<ProcessGroup>& group) {
  BRISK_CHECK(values.defined() && values.dim() == 1, "all_reduce_metrics: expected a one-dimensional tensor, got {}",
              values.defined() ? values.describe() : std::string("an undefined tensor"));
  const DType dtype = is_floating_point(values.dtype()) ? kFloat64 : values.dtype();
  if (group == nullptr && !is_initialized()) return native::clone(native::to(values, values.device(), dtype));
  const std::shared_ptr<ProcessGroup> on = group != nullptr ? group : default_group();
  // A copy of its own on the group's device: the collective works in place.
  Tensor reduced = native::clone(native::to(values, on->device(), dtype));
  on->all_reduce(reduced, op)->wait();
  return reduced;
}

std::vector<double> all_reduce_metrics(const std::vector<double>& values, ReduceOp op,
                                       const std::shared_ptr<ProcessGroup>& group) {
  Tensor host = native::from_vector<double>(values, {static_cast<int64_t>(values.size())}, TensorOptions(kFloat64));
  return all_reduce_metrics(host, op, group).to_vector<double>();
}

double all_reduce_metric(double value, ReduceOp op, const std::shared_ptr<ProcessGroup>& group) {
  return all_reduce_metrics(std::vector<double>{value}, op, group)[0];
}

}  // namespace brisk::dist
