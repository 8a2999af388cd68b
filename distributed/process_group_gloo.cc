#include "distributed/process_group_gloo.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>

#include "distributed/collective_checks.h"
#include "distributed/collective_signature.h"
#include "distributed/desync_monitor.h"
#include "distributed/gloo_reduce.h"
#include "distributed/gloo_store.h"
#include "distributed/gloo_work.h"
#include "distributed/host_staging.h"
#include "distributed/socket.h"
#include "tensor/error.h"

namespace brisk::dist {
namespace {

// Gloo writes to its peers' sockets without MSG_NOSIGNAL, so a write to a peer that died
// raises SIGPIPE, whose default action kills this process before the collective can fail
// with an error naming the absent rank. A handler the program installed itself is kept.
void ignore_default_sigpipe() {
  struct sigaction current {};
  if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) signal(SIGPIPE, SIG_IGN);
}

using Clock = std::chrono::steady_clock;
using namespace gloo_reduce;

constexpr const char* kBackend = "ProcessGroupGloo";
constexpr std::initializer_list<DType> kDtypes = {kFloat32, kFloat64, kInt64, kInt32, kUInt8};
// Reducing ops also take 16-bit floats (each pairwise step computed in float).
constexpr std::initializer_list<DType> kReducingDtypes = {kFloat32, kFloat64, kInt64,    kInt32,
                                                          kUInt8,   kBFloat16, kFloat16};

// Point-to-point messages use Gloo slots of this prefix; collectives use Gloo's own prefixes
// with the signature's fingerprint as the tag.
constexpr uint64_t kP2PSlotPrefix = uint64_t{0xff} << 56;

}  // namespace

struct ProcessGroupGloo::Impl {
  std::shared_ptr<Store> store;
  int rank;
  int size;
  ProcessGroupOptions options;
  std::string name;
  std::shared_ptr<gloo::transport::Device> device;
  std::shared_ptr<gloo::rendezvous::Context> context;

  std::mutex mutex;  // next_seq, broken, unfinished
  int64_t next_seq = 0;
  std::string broken;  // the first failure
  std::vector<std::weak_ptr<WorkGloo>> unfinished;

  // Destroyed after the workers (declared before them), before the state its handler uses.
  std::unique_ptr<DesyncMonitor> monitor;
  // Destroyed first (declared last): their threads finish before the context goes.
  std::unique_ptr<GlooWorker> p2p_waiter;
  std::unique_ptr<GlooWorker> worker;

  std::string where() const { return fmt::format("ProcessGroupGloo '{}' rank {}/{}", name, rank, size); }

  std::shared_ptr<WorkGloo> new_work() {
    auto work = std::make_shared<WorkGloo>();
    std::lock_guard<std::mutex> lock(mutex);
    unfinished.erase(std::remove_if(unfinished.begin(), unfinished.end(),
                                    [](const std::weak_ptr<WorkGloo>& w) {
                                      auto p = w.lock();
                                      return !p || p->is_completed();
                                    }),
                     unfinished.end());
    unfinished.push_back(work);
    return work;
  }

  // The group is unusable from now on: every unfinished Work fails with `message` at once
  // (its operation, possibly stuck in Gloo until the timeout, can no longer succeed).
  void break_group(const std::string& message) {
    std::vector<std::weak_ptr<WorkGloo>> failing;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!broken.empty()) return;
      broken = message;
      failing.swap(unfinished);
    }
    auto error = std::make_exception_ptr(Error(message));
    for (auto& w : failing)
      if (auto work = w.lock()) work->finish(error);
  }

  std::string broken_reason() {
    std::lock_guard<std::mutex> lock(mutex);
    return broken;
  }

  // Queues `body` (the transport part of one collective, given its Gloo tag); then `staging`
  // copies its results back to the device (null: nothing staged).
  std::shared_ptr<Work> collective(CollectiveSignature sig, std::shared_ptr<HostStaging> staging,
                                   std::function<void(uint32_t tag)> body) {
    auto work = new_work();
    {
      std::lock_guard<std::mutex> lock(mutex);
      sig.seq = next_seq++;
    }
    worker->push({work, [this, sig, staging = std::move(staging), body = std::move(body)] {
                    run(sig, body);
                    if (staging) staging->copy_back();
                  }});
    return work;
  }

  // The tag is the signature's fingerprint: ranks that called different things use different
  // Gloo slots, so their messages never meet (no buffer-size abort inside Gloo); the
  // collective then fails by the desync monitor or by the timeout, and the error says why.
  void run(const CollectiveSignature& sig, const std::function<void(uint32_t)>& body) {
    monitor->record(sig);
    std::string earlier = broken_reason();
    BRISK_CHECK(earlier.empty(), "{}: {} not run: the group failed earlier: {}", where(), sig.str(), earlier);
    auto start = Clock::now();
    try {
      body(sig.fingerprint());
    } catch (const std::exception& e) {
      fail(sig, start, e.what());
    }
  }

  [[noreturn]] void fail(const CollectiveSignature& sig, Clock::time_point start, const std::string& cause) {
    std::string earlier = broken_reason();
    if (!earlier.empty()) BRISK_FAIL("{}", earlier);  // the monitor failed it already, saying why
    auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    std::string op = fmt::format("{} #{}", collective_name(sig.kind), sig.seq);
    std::string message = fmt::format("{}: {} failed after {} ms (timeout {} ms): {}. {}", where(), op, elapsed,
                                      options.timeout.count(), cause, monitor->diagnose(sig.seq));
    break_group(message);
    // The other ranks fail at about the same moment and ask the store too; rank 0 hosts it,
    // so give them time to read it before this failure ends the process.
    std::this_thread::sleep_for(std::chrono::seconds(1));
    BRISK_FAIL("{}", message);
  }

  // Point-to-point: posted in order on the worker, waited for on p2p_waiter, so posting
  // never blocks the operations queued after it. `tensor` is host memory (staged by
  // `staging`, which copies a received tensor back).
  std::shared_ptr<Work> p2p(bool is_send, Tensor tensor, std::shared_ptr<HostStaging> staging, int peer, int tag) {
    auto work = new_work();
    std::string what = fmt::format("{} {} rank {} (tag {})", where(), is_send ? "send to" : "recv from", peer, tag);
    auto fail_work = [work, what](const std::exception& e) {
      work->finish(std::make_exception_ptr(Error(fmt::format("{} failed: {}", what, e.what()))));
    };
    auto post = [this, work, is_send, tensor, staging, peer, tag, fail_work] {
      try {
        std::string earlier = broken_reason();
        BRISK_CHECK(earlier.empty(), "the group failed earlier: {}", earlier);
        std::shared_ptr<gloo::transport::UnboundBuffer> buffer =
            context->createUnboundBuffer(tensor.raw_data(), tensor.nbytes());
        uint64_t slot = kP2PSlotPrefix | static_cast<uint32_t>(tag);
        if (is_send) buffer->send(peer, slot);
        else buffer->recv(peer, slot);
        auto complete = [this, buffer, work, tensor, staging, is_send, fail_work] {
          try {
            if (is_send) buffer->waitSend(options.timeout);
            else buffer->waitRecv(options.timeout);
            staging->copy_back();
            work->finish(nullptr);
          } catch (const std::exception& e) {
            fail_work(e);
          }
        };
        p2p_waiter->push({std::make_shared<WorkGloo>(), complete});
      } catch (const std::exception& e) {
        fail_work(e);
      }
    };
    worker->push({std::make_shared<WorkGloo>(), post});
    return work;
  }
};

std::string ProcessGroupGloo::device_host() {
  const char* master = std::getenv("MASTER_ADDR");
  return master && *master ? net::local_address_towards(master) : "127.0.0.1";
}

ProcessGroupGloo::ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size, ProcessGroupOptions options,
                                   std::string host, std::string name)
    : ProcessGroup(rank, size, options.device.value_or(kCPU)), impl_(std::make_unique<Impl>()) {
  BRISK_CHECK(size >= 1 && rank >= 0 && rank < size, "ProcessGroupGloo '{}': rank {} is not in [0, {})", name, rank,
              size);
  BRISK_CHECK(options.timeout.count() > 0, "ProcessGroupGloo '{}': timeout must be positive", name);
  impl_->store = std::move(store);
  impl_->rank = rank;
  impl_->size = size;
  impl_->options = options;
  impl_->name = std::move(name);
  ignore_default_sigpipe();
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = host;
    impl_->device = gloo::transport::tcp::CreateDevice(attr);
    impl_->context = std::make_shared<gloo::rendezvous::Context>(rank, size);
    impl_->context->setTimeout(options.timeout);
    GlooStore gloo_store(impl_->store);
    impl_->context->connectFullMesh(gloo_store, impl_->device);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    BRISK_FAIL("{}: cannot connect the ranks on {} within {} ms: {}", impl_->where(), host, options.timeout.count(),
               e.what());
  }
  Impl* impl = impl_.get();
  impl_->monitor = std::make_unique<DesyncMonitor>(
      impl_->store, rank, size, options.check_desync,
      [impl](const std::string& mismatch) { impl->break_group(fmt::format("{}: {}", impl->where(), mismatch)); });
  impl_->p2p_waiter = std::make_unique<GlooWorker>();
  impl_->worker = std::make_unique<GlooWorker>();
}

ProcessGroupGloo::~ProcessGroupGloo() {
  impl_->worker.reset();
  impl_->p2p_waiter.reset();
  impl_->monitor.reset();
}

const std::string& ProcessGroupGloo::name() const { return impl_->name; }
const ProcessGroupOptions& ProcessGroupGloo::options() const { return impl_->options; }

std::shared_ptr<Work> ProcessGroupGloo::broadcast(Tensor& tensor, int root) {
  CallChecks check(kBackend, *this, "broadcast");
  check.tensor(tensor, "tensor");
  check.root(root);
  check.dtype(tensor.dtype(), kDtypes);
  auto staging = std::make_shared<HostStaging>(device());
  Tensor host = staging->output(tensor, true);
  auto sig = CollectiveSignature::of(CollectiveKind::kBroadcast, tensor.numel(), tensor.dtype(), root);
  return impl_->collective(sig, staging, [this, host, root](uint32_t tag) {
    if (host.numel() == 0) return;
    dispatch_gloo(host.dtype(), [&](auto t) {
      using T = typename decltype(t)::type;
      gloo::BroadcastOptions o(impl_->context);
      o.setOutput(host.data_ptr<T>(), static_cast<size_t>(host.numel()));
      o.setRoot(root);
      o.setTag(tag);
      o.setTimeout(impl_->options.timeout);
      gloo::broadcast(o);
    });
  });
}

std::shared_ptr<Work> ProcessGroupGloo::all_reduce(Tensor& tensor, ReduceOp op) {
  CallChecks check(kBackend, *this, "all_reduce");
  check.tensor(tensor, "tensor");
  check.dtype(tensor.dtype(), kReducingDtypes);
  auto staging = std::make_shared<HostStaging>(device());
  Tensor host = staging->output(tensor, true);
  auto sig = CollectiveSignature::of(CollectiveKind::kAllReduce, tensor.numel(), tensor.dtype(), -1,
                op);
  return impl_->collective(sig, staging, [this, host, op](uint32_t tag) {
    if (host.numel() == 0) return;
    dispatch_gloo(host.dtype(), [&](auto t) {
      using T = typename decltype(t)::type;
      gloo::AllreduceOptions o(impl_->context);
      o.setOutput(host.data_ptr<T>(), static_cast<size_t>(host.numel()));
      o.setReduceFunction(reduce_fn<T>(op));
      o.setTag(tag);
      o.setTimeout(impl_->options.timeout);
      gloo::allreduce(o);
      if (op == ReduceOp::AVG) divide(host.data_ptr<T>(), host.numel(), size());
    });
  });
}

std::shared_ptr<Work> ProcessGroupGloo::reduce(Tensor& tensor, int root, ReduceOp op) {
  CallChecks check(kBackend, *this, "reduce");
  check.tensor(tensor, "tensor");
  check.root(root);
  check.dtype(tensor.dtype(), kReducingDtypes);
  auto staging = std::make_shared<HostStaging>(device());
  Tensor host = staging->output(tensor, true);
  auto sig = CollectiveSignature::of(CollectiveKind::kReduce, tensor.numel(), tensor.dtype(), root,
                op);
  return impl_->collective(sig, staging, [this, host, root, op](uint32_t tag) {
    if (host.numel() == 0) return;
    dispatch_gloo(host.dtype(), [&](auto t) {
      using T = typename decltype(t)::type;
      gloo::ReduceOptions o(impl_->context);
      o.setOutput(host.data_ptr<T>(), static_cast<size_t>(host.numel()));
      o.setRoot(root);
      o.setReduceFunction(reduce_fn<T>(op));
      o.setTag(tag);
      o.setTimeout(impl_->options.timeout);
      gloo::reduce(o);
      if (op == ReduceOp::AVG && rank() == root) divide(host.data_ptr<T>(), host.numel(), size());
    });
  });
}

std::shared_ptr<Work> ProcessGroupGloo::all_gather(std::vector<Tensor>& outputs, const Tensor& input) {
  CallChecks check(kBackend, *this, "all_gather");
  check.tensor(input, "input");
  check.list(outputs, input, "outputs");
  check.dtype(input.dtype(), kDtypes);
  auto staging = std::make_shared<HostStaging>(device());
  Tensor in = staging->input(input);
  std::vector<Tensor> outs;
  for (const Tensor& out : outputs) outs.push_back(staging->output(out, false));
  auto sig = CollectiveSignature::of(CollectiveKind::kAllGather, input.numel(), input.dtype());
  return impl_->collective(sig, staging, [this, outs, in](uint32_t tag) {
    if (in.numel() == 0) return;
    dispatch_gloo(in.dtype(), [&](auto t) {
      using T = typename decltype(t)::type;
      size_t n = static_cast<size_t>(in.numel());
      std::vector<T> flat(n * static_cast<size_t>(size()));
      gloo::AllgatherOptions o(impl_->context);
      o.setInput(in.data_ptr<T>(), n);
      o.setOutput(flat.data(), flat.size());
      o.setTag(tag);
      o.setTimeout(impl_->options.timeout);
      gloo::allgather(o);
      for (size_t r = 0; r < outs.size(); ++r) std::memcpy(outs[r].data_ptr<T>(), flat.data() + r * n, n * sizeof(T));
    });
  });
}

std::shared_ptr<Work> ProcessGroupGloo::gather(std::vector<Tensor>& outputs, const Tensor& input, int root) {
  CallChecks check(kBackend, *this, "gather");
  check.tensor(input, "input");
  check.root(root);
  if (rank() == root) check.list(outputs, input, "outputs");
  check.dtype(input.dtype(), kDtypes);
  auto staging = std::make_shared<HostStaging>(device());
  Tensor in = staging->input(input);
  std::vector<Tensor> outs;
  if (rank() == root)
    for (const Tensor& out : outputs) outs.push_back(staging->output(out, false));
  auto sig = CollectiveSignature::of(CollectiveKind::kGather, input.numel(), input.dtype(), root);
  return impl_->collective(sig, staging, [this, outs, in, root](uint32_t tag) {
    if (in.numel() == 0) return;
    dispatch_gloo(in.dtype(), [&](auto t) {
      using T = typename decltype(t)::type;
      size_t n = static_cast<size_t>(in.numel());
      std::vector<T> flat(rank() == root ? n * static_cast<size_t>(size()) : 0);
      gloo::GatherOptions o(impl_->context);
      o.setInput(in.data_ptr<T>(), n);
      if (rank() == root) o.setOutput(flat.data(), flat.size());
      o.setRoot(root);
      o.setTag(tag);
      o.setTimeout(impl_->options.timeout);
      gloo::gather(o);
      for (size_t r = 0; r < outs.size(); ++r) std::memcpy(outs[r].data_ptr<T>(), flat.data() + r * n, n * sizeof(T));
    });
  });
}

std::shared_ptr<Work> ProcessGroupGloo::scatter(Tensor& output, const std::vector<Tensor>& inputs, int root) {
  CallChecks check(kBackend, *this, "scatter");
  check.tensor(output, "output");
  check.root(root);
  if (rank() == root) check.list(inputs, output, "inputs");
  check.dtype(output.dtype(), kDtypes);
  auto staging = std::make_shared<HostStaging>(device());
  std::vector<Tensor> ins;
  if (rank() == root)
    for (const Tensor& in : inputs) ins.push_back(staging->input(in));
  Tensor out = staging->output(output, false);
  auto sig = CollectiveSignature::of(CollectiveKind::kScatter, output.numel(), output.dtype(), root);
  return impl_->collective(sig, staging, [this, out, ins, root](uint32_t tag) {
    if (out.numel() == 0) return;
    dispatch_gloo(out.dtype(), [&](auto t) {
      using T = typename decltype(t)::type;
      gloo::ScatterOptions o(impl_->context);
      if (rank() == root) {
        std::vector<T*> ptrs;
        for (const auto& in : ins) ptrs.push_back(in.data_ptr<T>());
        o.setInputs(ptrs, static_cast<size_t>(out.numel()));
      }
      o.setOutput(out.data_ptr<T>(), static_cast<size_t>(out.numel()));
      o.setRoot(root);
      o.setTag(tag);
      o.setTimeout(impl_->options.timeout);
      gloo::scatter(o);
    });
  });
}

std::shared_ptr<Work> ProcessGroupGloo::reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op) {
  CallChecks check(kBackend, *this, "reduce_scatter");
  check.tensor(output, "output");
  check.list(inputs, output, "inputs");
  check.dtype(output.dtype(), kReducingDtypes);
  auto staging = std::make_shared<HostStaging>(device());
  std::vector<Tensor> ins;
  for (const Tensor& in : inputs) ins.push_back(staging->input(in));
  Tensor out = staging->output(output, false);
  auto sig = CollectiveSignature::of(CollectiveKind::kReduceScatter, output.numel(), output.dtype(),
                -1, op);
  // An all-to-all hands rank r every rank's inputs[r]; r then reduces them in rank order.
  return impl_->collective(sig, staging, [this, out, ins, op](uint32_t tag) {
    if (out.numel() == 0) return;
    dispatch_gloo(out.dtype(), [&](auto t) {
      using T = typename decltype(t)::type;
      size_t n = static_cast<size_t>(out.numel());
      size_t ranks = static_cast<size_t>(size());
      std::vector<T> sent(n * ranks), received(n * ranks);
      for (size_t r = 0; r < ranks; ++r) std::memcpy(sent.data() + r * n, ins[r].data_ptr<T>(), n * sizeof(T));
      gloo::AlltoallOptions o(impl_->context);
      o.setInput(sent.data(), sent.size());
      o.setOutput(received.data(), received.size());
      o.setTag(tag);
      o.setTimeout(impl_->options.timeout);
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
  CallChecks check(kBackend, *this, "all_to_all");
  BRISK_CHECK(!inputs.empty(), "{}: inputs is empty, the group has {} ranks", check.where(), size());
  DType dtype = inputs[0].defined() ? inputs[0].dtype() : kFloat32;
  check.list_of_dtype(inputs, dtype, "inputs");
  check.list_of_dtype(outputs, dtype, "outputs");
  check.dtype(dtype, kDtypes);
  auto staging = std::make_shared<HostStaging>(device());
  std::vector<Tensor> ins, outs;
  for (const Tensor& in : inputs) ins.push_back(staging->input(in));
  for (const Tensor& out : outputs) outs.push_back(staging->output(out, false));
  // Sizes may differ per peer, so only the op and the dtype are compared across ranks.
  auto sig = CollectiveSignature::of(CollectiveKind::kAllToAll, -1, dtype);
  return impl_->collective(sig, staging, [this, outs, ins](uint32_t tag) {
    dispatch_gloo(ins[0].dtype(), [&](auto t) {
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
      gloo::AlltoallvOptions o(impl_->context);
      o.setInput(sent.data(), in_counts);
      o.setOutput(received.data(), out_counts);
      o.setTag(tag);
      o.setTimeout(impl_->options.timeout);
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
  return impl_->collective(sig, nullptr, [this](uint32_t tag) {
    gloo::BarrierOptions o(impl_->context);
    o.setTag(tag);
    o.setTimeout(impl_->options.timeout);
    gloo::barrier(o);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::send(const Tensor& tensor, int dst, int tag) {
  CallChecks check(kBackend, *this, "send");
  check.tensor(tensor, "tensor");
  check.peer(dst);
  auto staging = std::make_shared<HostStaging>(device());
  return impl_->p2p(true, staging->input(tensor), staging, dst, tag);
}

std::shared_ptr<Work> ProcessGroupGloo::recv(Tensor& tensor, int src, int tag) {
  CallChecks check(kBackend, *this, "recv");
  check.tensor(tensor, "tensor");
  check.peer(src);
  auto staging = std::make_shared<HostStaging>(device());
  return impl_->p2p(false, staging->output(tensor, false), staging, src, tag);
}

}  // namespace brisk::dist
