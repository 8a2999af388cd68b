#include "distributed/process_group.h"

#include "tensor/error.h"

namespace brisk::dist {

void ProcessGroup::not_implemented(const char* op) const {
  BRISK_FAIL("ProcessGroup rank {}/{}: {} not implemented by backend '{}'", rank_, size_, op, backend_name());
}

std::shared_ptr<Work> ProcessGroup::broadcast(Tensor&, int) { not_implemented("broadcast"); }
std::shared_ptr<Work> ProcessGroup::all_reduce(Tensor&, ReduceOp) { not_implemented("all_reduce"); }
std::shared_ptr<Work> ProcessGroup::reduce(Tensor&, int, ReduceOp) { not_implemented("reduce"); }
std::shared_ptr<Work> ProcessGroup::all_gather(std::vector<Tensor>&, const Tensor&) { not_implemented("all_gather"); }
std::shared_ptr<Work> ProcessGroup::gather(std::vector<Tensor>&, const Tensor&, int) { not_implemented("gather"); }
std::shared_ptr<Work> ProcessGroup::scatter(Tensor&, const std::vector<Tensor>&, int) { not_implemented("scatter"); }
std::shared_ptr<Work> ProcessGroup::reduce_scatter(Tensor&, const std::vector<Tensor>&, ReduceOp) {
  not_implemented("reduce_scatter");
}
std::shared_ptr<Work> ProcessGroup::all_to_all(std::vector<Tensor>&, const std::vector<Tensor>&) {
  not_implemented("all_to_all");
}
std::shared_ptr<Work> ProcessGroup::barrier() { not_implemented("barrier"); }
std::shared_ptr<Work> ProcessGroup::send(const Tensor&, int, int) { not_implemented("send"); }
std::shared_ptr<Work> ProcessGroup::recv(Tensor&, int, int) { not_implemented("recv"); }

}  // namespace brisk::dist
