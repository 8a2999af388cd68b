#include "distributed/host_value_collectives.h"

#include "tensor/native/ops.h"

namespace brisk::dist {

namespace {

Tensor on_group_device(ProcessGroup& group, const std::vector<int64_t>& values) {
  return native::from_vector<int64_t>(values, {static_cast<int64_t>(values.size())},
                                      TensorOptions(kInt64).device(group.device()));
}

}  // namespace

std::vector<int64_t> all_reduce_values(ProcessGroup& group, const std::vector<int64_t>& values, ReduceOp op) {
  Tensor t = on_group_device(group, values);
  group.all_reduce(t, op)->wait();
  return t.to_vector<int64_t>();
}

std::vector<int64_t> broadcast_values(ProcessGroup& group, const std::vector<int64_t>& values, int root) {
  Tensor t = on_group_device(group, values);
  group.broadcast(t, root)->wait();
  return t.to_vector<int64_t>();
}

std::vector<int64_t> all_gather_values(ProcessGroup& group, const std::vector<int64_t>& values) {
  const auto n = static_cast<int64_t>(values.size());
  Tensor mine = on_group_device(group, values);
  std::vector<Tensor> all;
  for (int r = 0; r < group.size(); ++r) all.push_back(native::empty({n}, TensorOptions(kInt64).device(group.device())));
  group.all_gather(all, mine)->wait();
  return native::cat(all, 0).to_vector<int64_t>();
}

}  // namespace brisk::dist
