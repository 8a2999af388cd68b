#include "distributed/collective_checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tensor/error.h"

namespace brisk::dist {
namespace {

// The single checks of one call, each raising an Error that starts with where().
class CallChecks {
 public:
  CallChecks(const char* backend, const ProcessGroup& group, const char* op)
      : backend_(backend), op_(op), rank_(group.rank()), size_(group.size()), device_(group.device()) {}

  // "ProcessGroupGloo all_reduce: rank 1 of 3".
  std::string where() const { return fmt::format("{} {}: rank {} of {}", backend_, op_, rank_, size_); }

  // Defined, contiguous and on the group's device; `what` names it ("tensor", "inputs[2]").
  void tensor(const Tensor& t, const std::string& what) const {
    BRISK_CHECK(t.defined(), "{}: {} is an undefined tensor", where(), what);
    BRISK_CHECK(t.device() == device_, "{}: {} is on {}, but the group's device is {} (every tensor must be on it)",
                where(), what, t.device(), device_);
    BRISK_CHECK(t.is_contiguous(), "{}: {} must be contiguous, got {}", where(), what, t.describe());
  }

  // One tensor per rank, each passing tensor() with the numel and dtype of `like`.
  void list(const std::vector<Tensor>& list, const Tensor& like, const std::string& what) const {
    list_of_dtype(list, like.dtype(), what);
    for (size_t r = 0; r < list.size(); ++r)
      BRISK_CHECK(list[r].numel() == like.numel(), "{}: {}[{}] has {} elements ({}), but {} are expected ({})", where(),
                  what, r, list[r].numel(), list[r].sizes(), like.numel(), like.sizes());
  }

  // One tensor per rank, each passing tensor() with dtype `dtype` (sizes may differ: all_to_all).
  void list_of_dtype(const std::vector<Tensor>& list, DType dtype, const std::string& what) const {
    BRISK_CHECK(static_cast<int>(list.size()) == size_, "{}: {} has {} tensors, the group has {} ranks", where(), what,
                list.size(), size_);
    for (size_t r = 0; r < list.size(); ++r) {
      tensor(list[r], fmt::format("{}[{}]", what, r));
      BRISK_CHECK(list[r].dtype() == dtype, "{}: {}[{}] is {}, but {} is expected", where(), what, r,
                  dtype_name(list[r].dtype()), dtype_name(dtype));
    }
  }

  void root(int root) const {
    BRISK_CHECK(root >= 0 && root < size_, "{}: root {} is not in [0, {})", where(), root, size_);
  }

  // A send/recv partner: another rank of the group.
  void peer(int peer) const {
    BRISK_CHECK(peer >= 0 && peer < size_ && peer != rank_, "{}: peer rank {} is not another rank of [0, {})", where(),
                peer, size_);
  }

  void dtype(DType dtype, DTypeSet supported) const {
    BRISK_CHECK(supported.contains(dtype), "{}: dtype {} is not supported ({})", where(), dtype_name(dtype),
                supported.names());
  }

 private:
  const char* backend_;
  const char* op_;
  int rank_;
  int size_;
  Device device_;
};

}  // namespace

std::string DTypeSet::names() const {
  std::vector<std::string> names;
  for (unsigned i = 0; i < 32; ++i)
    if ((bits_ >> i) & 1u) names.push_back(dtype_name(static_cast<DType>(i)));
  return fmt::format("{}", fmt::join(names, ", "));
}

CollectiveSignature OperationChecks::broadcast(const ProcessGroup& group, const Tensor& tensor, int root) const {
  CallChecks check(backend_, group, "broadcast");
  check.tensor(tensor, "tensor");
  check.root(root);
  check.dtype(tensor.dtype(), dtypes_);
  return CollectiveSignature::of(CollectiveKind::kBroadcast, tensor.numel(), tensor.dtype(), root);
}

CollectiveSignature OperationChecks::all_reduce(const ProcessGroup& group, const Tensor& tensor, ReduceOp op) const {
  CallChecks check(backend_, group, "all_reduce");
  check.tensor(tensor, "tensor");
  check.dtype(tensor.dtype(), reducing_dtypes_);
  return CollectiveSignature::of(CollectiveKind::kAllReduce, tensor.numel(), tensor.dtype(),
                                 CollectiveSignature::kUnused, op);
}

CollectiveSignature OperationChecks::reduce(const ProcessGroup& group, const Tensor& tensor, int root,
                                            ReduceOp op) const {
  CallChecks check(backend_, group, "reduce");
  check.tensor(tensor, "tensor");
  check.root(root);
  check.dtype(tensor.dtype(), reducing_dtypes_);
  return CollectiveSignature::of(CollectiveKind::kReduce, tensor.numel(), tensor.dtype(), root, op);
}

CollectiveSignature OperationChecks::all_gather(const ProcessGroup& group, const std::vector<Tensor>& outputs,
                                                const Tensor& input) const {
  CallChecks check(backend_, group, "all_gather");
  check.tensor(input, "input");
  check.list(outputs, input, "outputs");
  check.dtype(input.dtype(), dtypes_);
  return CollectiveSignature::of(CollectiveKind::kAllGather, input.numel(), input.dtype());
}

CollectiveSignature OperationChecks::gather(const ProcessGroup& group, const std::vector<Tensor>& outputs,
                                            const Tensor& input, int root) const {
  CallChecks check(backend_, group, "gather");
  check.tensor(input, "input");
  check.root(root);
  if (group.rank() == root) check.list(outputs, input, "outputs");
  check.dtype(input.dtype(), dtypes_);
  return CollectiveSignature::of(CollectiveKind::kGather, input.numel(), input.dtype(), root);
}

CollectiveSignature OperationChecks::scatter(const ProcessGroup& group, const Tensor& output,
                                             const std::vector<Tensor>& inputs, int root) const {
  CallChecks check(backend_, group, "scatter");
  check.tensor(output, "output");
  check.root(root);
  if (group.rank() == root) check.list(inputs, output, "inputs");
  check.dtype(output.dtype(), dtypes_);
  return CollectiveSignature::of(CollectiveKind::kScatter, output.numel(), output.dtype(), root);
}

CollectiveSignature OperationChecks::reduce_scatter(const ProcessGroup& group, const Tensor& output,
                                                    const std::vector<Tensor>& inputs, ReduceOp op) const {
  CallChecks check(backend_, group, "reduce_scatter");
  check.tensor(output, "output");
  check.list(inputs, output, "inputs");
  check.dtype(output.dtype(), reducing_dtypes_);
  return CollectiveSignature::of(CollectiveKind::kReduceScatter, output.numel(), output.dtype(),
                                 CollectiveSignature::kUnused, op);
}

CollectiveSignature OperationChecks::all_to_all(const ProcessGroup& group, const std::vector<Tensor>& outputs,
                                                const std::vector<Tensor>& inputs) const {
  CallChecks check(backend_, group, "all_to_all");
  BRISK_CHECK(!inputs.empty(), "{}: inputs is empty, the group has {} ranks", check.where(), group.size());
  const DType dtype = inputs[0].defined() ? inputs[0].dtype() : kFloat32;
  check.list_of_dtype(inputs, dtype, "inputs");
  check.list_of_dtype(outputs, dtype, "outputs");
  check.dtype(dtype, dtypes_);
  const int rank = group.rank();
  const Tensor& in = inputs[static_cast<size_t>(rank)];
  const Tensor& out = outputs[static_cast<size_t>(rank)];
  BRISK_CHECK(in.numel() == out.numel(), "{}: inputs[{}] has {} elements but outputs[{}] {} (this rank's own piece)",
              check.where(), rank, in.numel(), rank, out.numel());
  return CollectiveSignature::of(CollectiveKind::kAllToAll, CollectiveSignature::kUnused, dtype);
}

void OperationChecks::send(const ProcessGroup& group, const Tensor& tensor, int dst) const {
  CallChecks check(backend_, group, "send");
  check.tensor(tensor, "tensor");
  check.peer(dst);
}

void OperationChecks::recv(const ProcessGroup& group, const Tensor& tensor, int src) const {
  CallChecks check(backend_, group, "recv");
  check.tensor(tensor, "tensor");
  check.peer(src);
}

void check_group_arguments(const std::string& backend, const Store* store, int rank, int size,
                           const ProcessGroupOptions& options) {
  BRISK_CHECK(store != nullptr, "{}: no store", backend);
  BRISK_CHECK(size >= 1 && rank >= 0 && rank < size, "{}: rank {} is not in [0, {})", backend, rank, size);
  BRISK_CHECK(options.timeout.count() > 0, "{}: timeout must be positive, got {} ms", backend, options.timeout.count());
  BRISK_CHECK(!options.stall_timeout || options.stall_timeout->count() > 0,
              "{}: stall_timeout must be positive when set, got {} ms", backend, options.stall_timeout->count());
}

}  // namespace brisk::dist
