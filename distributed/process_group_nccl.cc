#include "distributed/process_group_nccl.h"

#include <fmt/format.h>

#include "cuda/device.h"
#include "cuda/error.h"
#include "distributed/backend_registry.h"
#include "distributed/nccl_group.h"
#include "tensor/error.h"
#include "tensor/native/ops.h"

namespace brisk::dist {
namespace {

const bool registered = register_process_group_backend(
    "nccl", [](std::shared_ptr<Store> store, int rank, int size, const ProcessGroupOptions& options) {
      return std::make_shared<ProcessGroupNCCL>(std::move(store), rank, size, options);
    });

// What the desync check compares, e.g. "numel 10, float32".
std::string shape_of(const Tensor& t) { return fmt::format("numel {}, {}", t.numel(), dtype_name(t.dtype())); }

void check_root(const char* op, int root, int size) {
  BRISK_CHECK(root >= 0 && root < size, "ProcessGroupNCCL: {}: root {} is outside [0, {})", op, root, size);
}

// outputs/inputs of a list op: one per rank, each shaped like `like`.
void check_list(const char* op, const char* what, const std::vector<Tensor>& list, const Tensor& like, int size) {
  BRISK_CHECK(static_cast<int>(list.size()) == size, "ProcessGroupNCCL: {}: {} has {} tensors for {} ranks", op, what,
              list.size(), size);
  for (size_t r = 0; r < list.size(); ++r)
    BRISK_CHECK(list[r].defined() && list[r].numel() == like.numel() && list[r].dtype() == like.dtype(),
                "ProcessGroupNCCL: {}: {}[{}] is {}, expected numel {} of {}", op, what, r,
                list[r].defined() ? list[r].describe() : std::string("undefined"), like.numel(),
                dtype_name(like.dtype()));
}

std::vector<Tensor> with(std::vector<Tensor> list, const Tensor& t) {
  list.push_back(t);
  return list;
}

void copy_on(cudaStream_t stream, const Tensor& dst, const Tensor& src) {
  if (dst.raw_data() != src.raw_data())
    BRISK_CUDA_CHECK(cudaMemcpyAsync(dst.raw_data(), src.raw_data(), src.nbytes(), cudaMemcpyDeviceToDevice, stream));
}

}  // namespace

ProcessGroupNCCL::ProcessGroupNCCL(std::shared_ptr<Store> store, int rank, int size, ProcessGroupOptions options)
    : ProcessGroup(rank, size, options.device.value_or(cuda_device(cuda::current_device()))),
      impl_(std::make_unique<Impl>(std::move(store), rank, size, options)) {
  BRISK_CHECK(device().is_cuda(), "ProcessGroupNCCL: rank {}: the group's device must be a CUDA device, got {}", rank,
              device());
}

ProcessGroupNCCL::~ProcessGroupNCCL() = default;

const ProcessGroupOptions& ProcessGroupNCCL::options() const { return impl_->options; }

std::shared_ptr<Work> ProcessGroupNCCL::broadcast(Tensor& tensor, int root) {
  check_root("broadcast", root, size());
  ncclDataType_t type = nccl_dtype(tensor.dtype(), "broadcast", true);
  return impl_->run("broadcast", fmt::format("broadcast({}, root {})", shape_of(tensor), root), {tensor}, true, false,
                    [&](ncclComm_t comm, cudaStream_t stream) {
                      BRISK_NCCL_CHECK(ncclBroadcast(tensor.raw_data(), tensor.raw_data(), tensor.numel(), type, root,
                                                     comm, stream));
                    });
}

std::shared_ptr<Work> ProcessGroupNCCL::all_reduce(Tensor& tensor, ReduceOp op) {
  ncclDataType_t type = nccl_dtype(tensor.dtype(), "all_reduce", false);
  return impl_->run("all_reduce", fmt::format("all_reduce({}, {})", shape_of(tensor), reduce_op_name(op)), {tensor},
                    true, false, [&](ncclComm_t comm, cudaStream_t stream) {
                      BRISK_NCCL_CHECK(ncclAllReduce(tensor.raw_data(), tensor.raw_data(), tensor.numel(), type,
                                                     nccl_op(op), comm, stream));
                    });
}

std::shared_ptr<Work> ProcessGroupNCCL::reduce(Tensor& tensor, int root, ReduceOp op) {
  check_root("reduce", root, size());
  ncclDataType_t type = nccl_dtype(tensor.dtype(), "reduce", false);
  return impl_->run("reduce", fmt::format("reduce({}, {}, root {})", shape_of(tensor), reduce_op_name(op), root),
                    {tensor}, true, false, [&](ncclComm_t comm, cudaStream_t stream) {
                      BRISK_NCCL_CHECK(ncclReduce(tensor.raw_data(), tensor.raw_data(), tensor.numel(), type,
                                                  nccl_op(op), root, comm, stream));
                    });
}

std::shared_ptr<Work> ProcessGroupNCCL::all_gather(std::vector<Tensor>& outputs, const Tensor& input) {
  check_list("all_gather", "outputs", outputs, input, size());
  ncclDataType_t type = nccl_dtype(input.dtype(), "all_gather", true);
  // One broadcast per rank, rooted at it, into outputs[root].
  return impl_->run("all_gather", fmt::format("all_gather({})", shape_of(input)), with(outputs, input), true, false,
                    [&](ncclComm_t comm, cudaStream_t stream) {
                      BRISK_NCCL_CHECK(ncclGroupStart());
                      for (int r = 0; r < size(); ++r)
                        BRISK_NCCL_CHECK(ncclBroadcast(input.raw_data(), outputs[r].raw_data(), input.numel(), type, r,
                                                       comm, stream));
                      BRISK_NCCL_CHECK(ncclGroupEnd());
                    });
}

std::shared_ptr<Work> ProcessGroupNCCL::gather(std::vector<Tensor>& outputs, const Tensor& input, int root) {
  check_root("gather", root, size());
  bool is_root = rank() == root;
  if (is_root) check_list("gather", "outputs", outputs, input, size());
  ncclDataType_t type = nccl_dtype(input.dtype(), "gather", true);
  return impl_->run("gather", fmt::format("gather({}, root {})", shape_of(input), root),
                    is_root ? with(outputs, input) : std::vector<Tensor>{input}, true, false,
                    [&](ncclComm_t comm, cudaStream_t stream) {
                      if (is_root) copy_on(stream, outputs[root], input);
                      BRISK_NCCL_CHECK(ncclGroupStart());
                      if (is_root) {
                        for (int r = 0; r < size(); ++r)
                          if (r != root)
                            BRISK_NCCL_CHECK(ncclRecv(outputs[r].raw_data(), input.numel(), type, r, comm, stream));
                      } else {
                        BRISK_NCCL_CHECK(ncclSend(input.raw_data(), input.numel(), type, root, comm, stream));
                      }
                      BRISK_NCCL_CHECK(ncclGroupEnd());
                    });
}

std::shared_ptr<Work> ProcessGroupNCCL::scatter(Tensor& output, const std::vector<Tensor>& inputs, int root) {
  check_root("scatter", root, size());
  bool is_root = rank() == root;
  if (is_root) check_list("scatter", "inputs", inputs, output, size());
  ncclDataType_t type = nccl_dtype(output.dtype(), "scatter", true);
  return impl_->run("scatter", fmt::format("scatter({}, root {})", shape_of(output), root),
                    is_root ? with(inputs, output) : std::vector<Tensor>{output}, true, false,
                    [&](ncclComm_t comm, cudaStream_t stream) {
                      if (is_root) copy_on(stream, output, inputs[root]);
                      BRISK_NCCL_CHECK(ncclGroupStart());
                      if (is_root) {
                        for (int r = 0; r < size(); ++r)
                          if (r != root)
                            BRISK_NCCL_CHECK(ncclSend(inputs[r].raw_data(), output.numel(), type, r, comm, stream));
                      } else {
                        BRISK_NCCL_CHECK(ncclRecv(output.raw_data(), output.numel(), type, root, comm, stream));
                      }
                      BRISK_NCCL_CHECK(ncclGroupEnd());
                    });
}

std::shared_ptr<Work> ProcessGroupNCCL::reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs,
                                                       ReduceOp op) {
  check_list("reduce_scatter", "inputs", inputs, output, size());
  ncclDataType_t type = nccl_dtype(output.dtype(), "reduce_scatter", false);
  // One reduce per rank, rooted at it, of everyone's inputs[root] into its output.
  return impl_->run("reduce_scatter", fmt::format("reduce_scatter({}, {})", shape_of(output), reduce_op_name(op)),
                    with(inputs, output), true, false, [&](ncclComm_t comm, cudaStream_t stream) {
                      BRISK_NCCL_CHECK(ncclGroupStart());
                      for (int r = 0; r < size(); ++r)
                        BRISK_NCCL_CHECK(ncclReduce(inputs[r].raw_data(), output.raw_data(), output.numel(), type,
                                                    nccl_op(op), r, comm, stream));
                      BRISK_NCCL_CHECK(ncclGroupEnd());
                    });
}

std::shared_ptr<Work> ProcessGroupNCCL::all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs) {
  BRISK_CHECK(static_cast<int>(inputs.size()) == size() && static_cast<int>(outputs.size()) == size(),
              "ProcessGroupNCCL: all_to_all: {} inputs and {} outputs for {} ranks", inputs.size(), outputs.size(),
              size());
  BRISK_CHECK(inputs[rank()].numel() == outputs[rank()].numel(),
              "ProcessGroupNCCL: all_to_all: inputs[{}] has {} elements but outputs[{}] {}", rank(),
              inputs[rank()].numel(), rank(), outputs[rank()].numel());
  DType dtype = inputs[rank()].dtype();
  ncclDataType_t type = nccl_dtype(dtype, "all_to_all", true);
  std::vector<Tensor> tensors = inputs;
  tensors.insert(tensors.end(), outputs.begin(), outputs.end());
  for (const Tensor& t : tensors)
    BRISK_CHECK(t.defined() && t.dtype() == dtype, "ProcessGroupNCCL: all_to_all: mixed dtypes ({} and {})",
                dtype_name(dtype), t.defined() ? dtype_name(t.dtype()) : "undefined");
  // The pieces may differ in size from rank to rank, so only the dtype is compared.
  return impl_->run("all_to_all", fmt::format("all_to_all({})", dtype_name(dtype)), tensors, true, false,
                    [&](ncclComm_t comm, cudaStream_t stream) {
                      copy_on(stream, outputs[rank()], inputs[rank()]);
                      BRISK_NCCL_CHECK(ncclGroupStart());
                      for (int r = 0; r < size(); ++r) {
                        if (r == rank()) continue;
                        BRISK_NCCL_CHECK(ncclSend(inputs[r].raw_data(), inputs[r].numel(), type, r, comm, stream));
                        BRISK_NCCL_CHECK(ncclRecv(outputs[r].raw_data(), outputs[r].numel(), type, r, comm, stream));
                      }
                      BRISK_NCCL_CHECK(ncclGroupEnd());
                    });
}

std::shared_ptr<Work> ProcessGroupNCCL::barrier() {
  // An all-reduce of one byte on the current device; wait() blocks the host.
  Tensor scratch = native::empty({1}, TensorOptions().dtype(kUInt8).device(cuda_device(cuda::current_device())));
  return impl_->run("barrier", "barrier()", {scratch}, true, true, [&](ncclComm_t comm, cudaStream_t stream) {
    BRISK_NCCL_CHECK(ncclAllReduce(scratch.raw_data(), scratch.raw_data(), 1, ncclUint8, ncclSum, comm, stream));
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::send(const Tensor& tensor, int dst, int /*tag*/) {
  check_root("send", dst, size());
  ncclDataType_t type = nccl_dtype(tensor.dtype(), "send", true);
  return impl_->run("send", fmt::format("send({}, to {})", shape_of(tensor), dst), {tensor}, false, false,
                    [&](ncclComm_t comm, cudaStream_t stream) {
                      BRISK_NCCL_CHECK(ncclSend(tensor.raw_data(), tensor.numel(), type, dst, comm, stream));
                    });
}

std::shared_ptr<Work> ProcessGroupNCCL::recv(Tensor& tensor, int src, int /*tag*/) {
  check_root("recv", src, size());
  ncclDataType_t type = nccl_dtype(tensor.dtype(), "recv", true);
  return impl_->run("recv", fmt::format("recv({}, from {})", shape_of(tensor), src), {tensor}, false, false,
                    [&](ncclComm_t comm, cudaStream_t stream) {
                      BRISK_NCCL_CHECK(ncclRecv(tensor.raw_data(), tensor.numel(), type, src, comm, stream));
                    });
}

}  // namespace brisk::dist
