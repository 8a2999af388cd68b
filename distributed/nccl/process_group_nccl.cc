#include "distributed/nccl/process_group_nccl.h"

#include <fmt/format.h>

#include "cuda/device.h"
#include "cuda/error.h"
#include "distributed/backend_registry.h"
#include "distributed/collective_checks.h"
#include "distributed/nccl/process_group_nccl_impl.h"
#include "tensor/error.h"
#include "tensor/native/ops.h"

namespace brisk::dist {
namespace {

const bool registered = register_process_group_backend(
    "nccl", [](std::shared_ptr<Store> store, int rank, int size, const ProcessGroupOptions& options) {
      return std::make_shared<ProcessGroupNCCL>(std::move(store), rank, size, options);
    });

// How a send/recv is described in errors, e.g. "numel 10, float32".
std::string shape_of(const Tensor& t) { return fmt::format("numel {}, {}", t.numel(), dtype_name(t.dtype())); }

// Ops that only move data also take bool (as uint8).
constexpr OperationChecks kChecks("ProcessGroupNCCL",
                                  {kFloat32, kFloat64, kFloat16, kBFloat16, kInt64, kInt32, kUInt8, kBool},
                                  {kFloat32, kFloat64, kFloat16, kBFloat16, kInt64, kInt32, kUInt8});

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
      impl_(std::make_unique<Impl>(std::move(store), rank, size, options, device())) {}

ProcessGroupNCCL::~ProcessGroupNCCL() = default;

const ProcessGroupOptions& ProcessGroupNCCL::options() const { return impl_->options; }

std::shared_ptr<Work> ProcessGroupNCCL::broadcast(Tensor& tensor, int root) {
  const CollectiveSignature sig = kChecks.broadcast(*this, tensor, root);
  ncclDataType_t type = nccl_dtype(tensor.dtype());
  return impl_->collective(sig, {tensor}, false, [&](ncclComm_t comm, cudaStream_t stream) {
    BRISK_NCCL_CHECK(ncclBroadcast(tensor.raw_data(), tensor.raw_data(), tensor.numel(), type, root, comm, stream));
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::all_reduce(Tensor& tensor, ReduceOp op) {
  const CollectiveSignature sig = kChecks.all_reduce(*this, tensor, op);
  ncclDataType_t type = nccl_dtype(tensor.dtype());
  return impl_->collective(sig, {tensor}, false, [&](ncclComm_t comm, cudaStream_t stream) {
    BRISK_NCCL_CHECK(
        ncclAllReduce(tensor.raw_data(), tensor.raw_data(), tensor.numel(), type, nccl_op(op), comm, stream));
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::reduce(Tensor& tensor, int root, ReduceOp op) {
  const CollectiveSignature sig = kChecks.reduce(*this, tensor, root, op);
  ncclDataType_t type = nccl_dtype(tensor.dtype());
  return impl_->collective(sig, {tensor}, false, [&](ncclComm_t comm, cudaStream_t stream) {
    BRISK_NCCL_CHECK(
        ncclReduce(tensor.raw_data(), tensor.raw_data(), tensor.numel(), type, nccl_op(op), root, comm, stream));
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::all_gather(std::vector<Tensor>& outputs, const Tensor& input) {
  const CollectiveSignature sig = kChecks.all_gather(*this, outputs, input);
  ncclDataType_t type = nccl_dtype(input.dtype());
  // One broadcast per rank, rooted at it, into outputs[root].
  return impl_->collective(sig, with(outputs, input), false, [&](ncclComm_t comm, cudaStream_t stream) {
    BRISK_NCCL_CHECK(ncclGroupStart());
    for (int r = 0; r < size(); ++r)
      BRISK_NCCL_CHECK(ncclBroadcast(input.raw_data(), outputs[r].raw_data(), input.numel(), type, r, comm, stream));
    BRISK_NCCL_CHECK(ncclGroupEnd());
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::gather(std::vector<Tensor>& outputs, const Tensor& input, int root) {
  const CollectiveSignature sig = kChecks.gather(*this, outputs, input, root);
  bool is_root = rank() == root;
  ncclDataType_t type = nccl_dtype(input.dtype());
  const std::vector<Tensor> tensors = is_root ? with(outputs, input) : std::vector<Tensor>{input};
  return impl_->collective(sig, tensors, false, [&](ncclComm_t comm, cudaStream_t stream) {
    if (is_root) copy_on(stream, outputs[root], input);
    BRISK_NCCL_CHECK(ncclGroupStart());
    if (is_root) {
      for (int r = 0; r < size(); ++r)
        if (r != root) BRISK_NCCL_CHECK(ncclRecv(outputs[r].raw_data(), input.numel(), type, r, comm, stream));
    } else {
      BRISK_NCCL_CHECK(ncclSend(input.raw_data(), input.numel(), type, root, comm, stream));
    }
    BRISK_NCCL_CHECK(ncclGroupEnd());
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::scatter(Tensor& output, const std::vector<Tensor>& inputs, int root) {
  const CollectiveSignature sig = kChecks.scatter(*this, output, inputs, root);
  bool is_root = rank() == root;
  ncclDataType_t type = nccl_dtype(output.dtype());
  const std::vector<Tensor> tensors = is_root ? with(inputs, output) : std::vector<Tensor>{output};
  return impl_->collective(sig, tensors, false, [&](ncclComm_t comm, cudaStream_t stream) {
    if (is_root) copy_on(stream, output, inputs[root]);
    BRISK_NCCL_CHECK(ncclGroupStart());
    if (is_root) {
      for (int r = 0; r < size(); ++r)
        if (r != root) BRISK_NCCL_CHECK(ncclSend(inputs[r].raw_data(), output.numel(), type, r, comm, stream));
    } else {
      BRISK_NCCL_CHECK(ncclRecv(output.raw_data(), output.numel(), type, root, comm, stream));
    }
    BRISK_NCCL_CHECK(ncclGroupEnd());
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op) {
  const CollectiveSignature sig = kChecks.reduce_scatter(*this, output, inputs, op);
  ncclDataType_t type = nccl_dtype(output.dtype());
  // One reduce per rank, rooted at it, of everyone's inputs[root] into its output.
  return impl_->collective(sig, with(inputs, output), false, [&](ncclComm_t comm, cudaStream_t stream) {
    BRISK_NCCL_CHECK(ncclGroupStart());
    for (int r = 0; r < size(); ++r)
      BRISK_NCCL_CHECK(
          ncclReduce(inputs[r].raw_data(), output.raw_data(), output.numel(), type, nccl_op(op), r, comm, stream));
    BRISK_NCCL_CHECK(ncclGroupEnd());
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs) {
  const CollectiveSignature sig = kChecks.all_to_all(*this, outputs, inputs);
  ncclDataType_t type = nccl_dtype(inputs[0].dtype());  // one dtype, checked
  std::vector<Tensor> tensors = inputs;
  tensors.insert(tensors.end(), outputs.begin(), outputs.end());
  return impl_->collective(sig, tensors, false, [&](ncclComm_t comm, cudaStream_t stream) {
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
  // An all-reduce of one byte on the group's device; wait() blocks the host.
  Tensor scratch = native::empty({1}, TensorOptions().dtype(kUInt8).device(device()));
  auto sig = CollectiveSignature::of(CollectiveKind::kBarrier);
  return impl_->collective(sig, {scratch}, true, [&](ncclComm_t comm, cudaStream_t stream) {
    BRISK_NCCL_CHECK(ncclAllReduce(scratch.raw_data(), scratch.raw_data(), 1, ncclUint8, ncclSum, comm, stream));
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::send(const Tensor& tensor, int dst, int /*tag*/) {
  kChecks.send(*this, tensor, dst);
  ncclDataType_t type = nccl_dtype(tensor.dtype());
  return impl_->p2p(fmt::format("send({}, to {})", shape_of(tensor), dst), {tensor},
                    [&](ncclComm_t comm, cudaStream_t stream) {
                      BRISK_NCCL_CHECK(ncclSend(tensor.raw_data(), tensor.numel(), type, dst, comm, stream));
                    });
}

std::shared_ptr<Work> ProcessGroupNCCL::recv(Tensor& tensor, int src, int /*tag*/) {
  kChecks.recv(*this, tensor, src);
  ncclDataType_t type = nccl_dtype(tensor.dtype());
  return impl_->p2p(fmt::format("recv({}, from {})", shape_of(tensor), src), {tensor},
                    [&](ncclComm_t comm, cudaStream_t stream) {
                      BRISK_NCCL_CHECK(ncclRecv(tensor.raw_data(), tensor.numel(), type, src, comm, stream));
                    });
}

}  // namespace brisk::dist
