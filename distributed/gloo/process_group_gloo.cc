#include "distributed/gloo/process_group_gloo.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/scatter.h>

#include <cstdlib>
#include <cstring>

#include "distributed/collective_checks.h"
#include "distributed/queued/host_reduce.h"
#include "distributed/gloo/process_group_gloo_impl.h"
#include "distributed/store/socket.h"
#include "tensor/error.h"

namespace brisk::dist {
namespace {

using namespace host_reduce;

// Reducing ops also take 16-bit floats (each pairwise step computed in float).
constexpr OperationChecks kChecks("ProcessGroupGloo", {kFloat32, kFloat64, kInt64, kInt32, kUInt8},
                                  {kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBFloat16, kFloat16});

}  // namespace

std::string ProcessGroupGloo::device_host() {
  const char* master = std::getenv("MASTER_ADDR");
  return master && *master ? net::local_address_towards(master) : "127.0.0.1";
}

ProcessGroupGloo::ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size, ProcessGroupOptions options,
                                   std::string host, std::string name)
    : ProcessGroup(rank, size, options.device.value_or(kCPU)),
      impl_(std::make_unique<Impl>(std::move(store), rank, size, options, host, std::move(name))) {}

ProcessGroupGloo::~ProcessGroupGloo() = default;

const std::string& ProcessGroupGloo::name() const { return impl_->name; }
const ProcessGroupOptions& ProcessGroupGloo::options() const { return impl_->options; }

std::shared_ptr<Work> ProcessGroupGloo::broadcast(Tensor& tensor, int root) {
  const CollectiveSignature sig = kChecks.broadcast(*this, tensor, root);
  auto staging = std::make_shared<TransportBuffers>(device());
  Tensor host = staging->output(tensor, true);
  return impl_->queue->collective(sig, staging, [this, host, root](uint32_t tag) {
    if (host.numel() == 0) return;
    dispatch_numeric(host.dtype(), [&](auto t) {
      using T = typename decltype(t)::type;
      auto o = impl_->options_for<gloo::BroadcastOptions>(tag);
      o.setOutput(host.data_ptr<T>(), static_cast<size_t>(host.numel()));
      o.setRoot(root);
      gloo::broadcast(o);
    });
  });
}

std::shared_ptr<Work> ProcessGroupGloo::all_reduce(Tensor& tensor, ReduceOp op) {
  const CollectiveSignature sig = kChecks.all_reduce(*this, tensor, op);
  auto staging = std::make_shared<TransportBuffers>(device());
  Tensor host = staging->output(tensor, true);
  return impl_->queue->collective(sig, staging, [this, host, op](uint32_t tag) {
    if (host.numel() == 0) return;
    dispatch_numeric(host.dtype(), [&](auto t) {
      using T = typename decltype(t)::type;
      auto o = impl_->options_for<gloo::AllreduceOptions>(tag);
      o.setOutput(host.data_ptr<T>(), static_cast<size_t>(host.numel()));
      o.setReduceFunction(reduce_fn<T>(op));
      gloo::allreduce(o);
      if (op == ReduceOp::AVG) divide(host.data_ptr<T>(), host.numel(), size());
    });
  });
}

std::shared_ptr<Work> ProcessGroupGloo::reduce(Tensor& tensor, int root, ReduceOp op) {
  const CollectiveSignature sig = kChecks.reduce(*this, tensor, root, op);
  auto staging = std::make_shared<TransportBuffers>(device());
  Tensor host = staging->output(tensor, true);
  return impl_->queue->collective(sig, staging, [this, host, root, op](uint32_t tag) {
    if (host.numel() == 0) return;
    dispatch_numeric(host.dtype(), [&](auto t) {
      using T = typename decltype(t)::type;
      auto o = impl_->options_for<gloo::ReduceOptions>(tag);
      o.setOutput(host.data_ptr<T>(), static_cast<size_t>(host.numel()));
      o.setRoot(root);
      o.setReduceFunction(reduce_fn<T>(op));
      gloo::reduce(o);
      if (op == ReduceOp::AVG && rank() == root) divide(host.data_ptr<T>(), host.numel(), size());
    });
  });
}

std::shared_ptr<Work> ProcessGroupGloo::all_gather(std::vector<Tensor>& outputs, const Tensor& input) {
  const CollectiveSignature sig = kChecks.all_gather(*this, outputs, input);
  auto staging = std::make_shared<TransportBuffers>(device());
  Tensor in = staging->input(input);
  std::vector<Tensor> outs;
  for (const Tensor& out : outputs) outs.push_back(staging->output(out, false));
  return impl_->queue->collective(sig, staging, [this, outs, in](uint32_t tag) {
    if (in.numel() == 0) return;
    dispatch_numeric(in.dtype(), [&](auto t) {
      using T = typename decltype(t)::type;
      size_t n = static_cast<size_t>(in.numel());
      std::vector<T> flat(n * static_cast<size_t>(size()));
      auto o = impl_->options_for<gloo::AllgatherOptions>(tag);
      o.setInput(in.data_ptr<T>(), n);
      o.setOutput(flat.data(), flat.size());
      gloo::allgather(o);
      for (size_t r = 0; r < outs.size(); ++r) std::memcpy(outs[r].data_ptr<T>(), flat.data() + r * n, n * sizeof(T));
    });
  });
}

std::shared_ptr<Work> ProcessGroupGloo::gather(std::vector<Tensor>& outputs, const Tensor& input, int root) {
  const CollectiveSignature sig = kChecks.gather(*this, outputs, input, root);
  auto staging = std::make_shared<TransportBuffers>(device());
  Tensor in = staging->input(input);
  std::vector<Tensor> outs;
  if (rank() == root)
    for (const Tensor& out : outputs) outs.push_back(staging->output(out, false));
  return impl_->queue->collective(sig, staging, [this, outs, in, root](uint32_t tag) {
    if (in.numel() == 0) return;
    dispatch_numeric(in.dtype(), [&](auto t) {
      using T = typename decltype(t)::type;
      size_t n = static_cast<size_t>(in.numel());
      std::vector<T> flat(rank() == root ? n * static_cast<size_t>(size()) : 0);
      auto o = impl_->options_for<gloo::GatherOptions>(tag);
      o.setInput(in.data_ptr<T>(), n);
      if (rank() == root) o.setOutput(flat.data(), flat.size());
      o.setRoot(root);
      gloo::gather(o);
      for (size_t r = 0; r < outs.size(); ++r) std::memcpy(outs[r].data_ptr<T>(), flat.data() + r * n, n * sizeof(T));
    });
  });
}

std::shared_ptr<Work> ProcessGroupGloo::scatter(Tensor& output, const std::vector<Tensor>& inputs, int root) {
  const CollectiveSignature sig = kChecks.scatter(*this, output, inputs, root);
  auto staging = std::make_shared<TransportBuffers>(device());
  std::vector<Tensor> ins;
  if (rank() == root)
    for (const Tensor& in : inputs) ins.push_back(staging->input(in));
  Tensor out = staging->output(output, false);
  return impl_->queue->collective(sig, staging, [this, out, ins, root](uint32_t tag) {
    if (out.numel() == 0) return;
    dispatch_numeric(out.dtype(), [&](auto t) {
      using T = typename decltype(t)::type;
      auto o = impl_->options_for<gloo::ScatterOptions>(tag);
      if (rank() == root) {
        std::vector<T*> ptrs;
        for (const auto& in : ins) ptrs.push_back(in.data_ptr<T>());
        o.setInputs(ptrs, static_cast<size_t>(out.numel()));
      }
      o.setOutput(out.data_ptr<T>(), static_cast<size_t>(out.numel()));
      o.setRoot(root);
      gloo::scatter(o);
    });
  });
}

std::shared_ptr<Work> ProcessGroupGloo::reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op) {
  const CollectiveSignature sig = kChecks.reduce_scatter(*this, output, inputs, op);
  auto staging = std::make_shared<TransportBuffers>(device());
  std::vector<Tensor> ins;
  for (const Tensor& in : inputs) ins.push_back(staging->input(in));
  Tensor out = staging->output(output, false);
  // An all-to-all hands rank r every rank's inputs[r]; r then reduces them in rank order.
  return impl_->queue->collective(sig, staging, [this, out, ins, op](uint32_t tag) {
    if (out.numel() == 0) return;
    dispatch_numeric(out.dtype(), [&](auto t) {
      using T = typename decltype(t)::type;
      size_t n = static_cast<size_t>(out.numel());
      size_t ranks = static_cast<size_t>(size());
      std::vector<T> sent(n * ranks), received(n * ranks);
      for (size_t r = 0; r < ranks; ++r) std::memcpy(sent.data() + r * n, ins[r].data_ptr<T>(), n * sizeof(T));
      auto o = impl_->options_for<gloo::AlltoallOptions>(tag);
      o.setInput(sent.data(), sent.size());
      o.setOutput(received.data(), received.size());
      gloo::alltoall(o);
      T* result = out.data_ptr<T>();
      std::memcpy(result, received.data(), n * sizeof(T));
      ReduceFn fn = reduce_fn<T>(op);
      for (size_t r = 1; r < ranks; ++r) fn(result, result, received.data() + r * n, n);
      if (op == ReduceOp::AVG) divide(result, out.numel(), size());
    });
  });
}

std::shared_ptr<Work> ProcessGroupGloo::all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs) {
  const CollectiveSignature sig = kChecks.all_to_all(*this, outputs, inputs);
  auto staging = std::make_shared<TransportBuffers>(device());
  std::vector<Tensor> ins, outs;
  for (const Tensor& in : inputs) ins.push_back(staging->input(in));
  for (const Tensor& out : outputs) outs.push_back(staging->output(out, false));
  return impl_->queue->collective(sig, staging, [this, outs, ins](uint32_t tag) {
    dispatch_numeric(ins[0].dtype(), [&](auto t) {
      using T = typename decltype(t)::type;
      std::vector<int64_t> in_counts, out_counts;
      int64_t in_total = 0, out_total = 0;
      for (const auto& in : ins) in_counts.push_back(in.numel()), in_total += in.numel();
      for (const auto& out : outs) out_counts.push_back(out.numel()), out_total += out.numel();
      // One spare element keeps both buffers non-empty when a rank moves no data: it still
      // takes part, since whether peers send it anything is their decision.
      std::vector<T> sent(static_cast<size_t>(in_total) + 1), received(static_cast<size_t>(out_total) + 1);
      size_t pos = 0;
      for (const auto& in : ins) {
        std::memcpy(sent.data() + pos, in.data_ptr<T>(), in.nbytes());
        pos += static_cast<size_t>(in.numel());
      }
      auto o = impl_->options_for<gloo::AlltoallvOptions>(tag);
      o.setInput(sent.data(), in_counts);
      o.setOutput(received.data(), out_counts);
      gloo::alltoallv(o);
      pos = 0;
      for (const auto& out : outs) {
        std::memcpy(out.data_ptr<T>(), received.data() + pos, out.nbytes());
        pos += static_cast<size_t>(out.numel());
      }
    });
  });
}

std::shared_ptr<Work> ProcessGroupGloo::barrier() {
  auto sig = CollectiveSignature::of(CollectiveKind::kBarrier);
  return impl_->queue->collective(sig, nullptr, [this](uint32_t tag) {
    auto o = impl_->options_for<gloo::BarrierOptions>(tag);
    gloo::barrier(o);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::send(const Tensor& tensor, int dst, int tag) {
  kChecks.send(*this, tensor, dst);
  auto staging = std::make_shared<TransportBuffers>(device());
  return impl_->p2p(true, staging->input(tensor), staging, dst, tag);
}

std::shared_ptr<Work> ProcessGroupGloo::recv(Tensor& tensor, int src, int tag) {
  kChecks.recv(*this, tensor, src);
  auto staging = std::make_shared<TransportBuffers>(device());
  return impl_->p2p(false, staging->output(tensor, false), staging, src, tag);
}

}  // namespace brisk::dist
