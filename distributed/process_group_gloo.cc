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

#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <type_traits>

#include "distributed/collective_checks.h"
#include "distributed/gloo_store.h"
#include "distributed/host_staging.h"
#include "distributed/socket.h"
#include "tensor/dispatch.h"
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
using ReduceFn = std::function<void(void*, const void*, const void*, size_t)>;

enum class OpKind : int64_t {
  kBroadcast = 1, kAllReduce, kReduce, kAllGather, kGather, kScatter, kReduceScatter, kAllToAll, kBarrier,
};

const char* op_name(OpKind op) {
  switch (op) {
    case OpKind::kBroadcast: return "broadcast";
    case OpKind::kAllReduce: return "all_reduce";
    case OpKind::kReduce: return "reduce";
    case OpKind::kAllGather: return "all_gather";
    case OpKind::kGather: return "gather";
    case OpKind::kScatter: return "scatter";
    case OpKind::kReduceScatter: return "reduce_scatter";
    case OpKind::kAllToAll: return "all_to_all";
    case OpKind::kBarrier: return "barrier";
  }
  return "?";
}

// What one rank called; the desync check all-gathers these. -1: not part of this op.
struct Signature {
  int64_t op = 0, seq = 0, numel = -1, dtype = -1, root = -1, reduce_op = -1;
  bool operator==(const Signature& o) const {
    return op == o.op && seq == o.seq && numel == o.numel && dtype == o.dtype && root == o.root &&
           reduce_op == o.reduce_op;
  }
  std::string str() const {
    std::string s = fmt::format("{} #{}(", op_name(static_cast<OpKind>(op)), seq);
    std::vector<std::string> parts;
    if (numel >= 0) parts.push_back(fmt::format("numel {}", numel));
    if (dtype >= 0) parts.push_back(dtype_name(static_cast<DType>(dtype)));
    if (root >= 0) parts.push_back(fmt::format("root {}", root));
    if (reduce_op >= 0) parts.push_back(std::string(reduce_op_name(static_cast<ReduceOp>(reduce_op))));
    return s + fmt::format("{})", fmt::join(parts, ", "));
  }
};
constexpr size_t kSignatureWords = sizeof(Signature) / sizeof(int64_t);

class WorkGloo : public Work {
 public:
  bool is_completed() override {
    std::lock_guard<std::mutex> lock(mutex_);
    return done_;
  }
  bool is_success() override {
    std::lock_guard<std::mutex> lock(mutex_);
    return done_ && !error_;
  }
  void wait() override {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return done_; });
    if (error_) std::rethrow_exception(error_);
  }
  void finish(std::exception_ptr error) {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
    error_ = std::move(error);
    cv_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::exception_ptr error_;
};

struct Task {
  std::shared_ptr<WorkGloo> work;
  std::function<void()> run;
};

// A queue drained in order by one thread; run() exceptions fail that task's Work.
class Worker {
 public:
  Worker() : thread_([this] { loop(); }) {}
  ~Worker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void push(Task task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(task));
    }
    cv_.notify_all();
  }

 private:
  void loop() {
    for (;;) {
      Task task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stop_ and drained
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      try {
        task.run();
        task.work->finish(nullptr);
      } catch (...) {
        task.work->finish(std::current_exception());
      }
    }
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Task> queue_;
  bool stop_ = false;
  std::thread thread_;
};

template <typename T>
constexpr bool kIs16Bit = std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>;

template <typename T>
using Acc = std::conditional_t<kIs16Bit<T>, float, T>;

template <typename T, typename F>
void combine(void* c, const void* a, const void* b, size_t n) {
  auto* out = static_cast<T*>(c);
  const auto* x = static_cast<const T*>(a);
  const auto* y = static_cast<const T*>(b);
  F f;
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<T>(f(static_cast<Acc<T>>(x[i]), static_cast<Acc<T>>(y[i])));
}

struct Sum { template <typename A> A operator()(A a, A b) const { return a + b; } };
struct Product { template <typename A> A operator()(A a, A b) const { return a * b; } };
struct Min { template <typename A> A operator()(A a, A b) const { return b < a ? b : a; } };
struct Max { template <typename A> A operator()(A a, A b) const { return a < b ? b : a; } };

template <typename T>
ReduceFn reduce_fn(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::AVG: return &combine<T, Sum>;
    case ReduceOp::PRODUCT: return &combine<T, Product>;
    case ReduceOp::MIN: return &combine<T, Min>;
    case ReduceOp::MAX: return &combine<T, Max>;
  }
  BRISK_FAIL("unknown ReduceOp");
}

// AVG = SUM / size; integers truncate toward zero, as C++ and PyTorch do.
template <typename T>
void divide(T* data, int64_t n, int size) {
  for (int64_t i = 0; i < n; ++i) data[i] = static_cast<T>(static_cast<Acc<T>>(data[i]) / static_cast<Acc<T>>(size));
}

constexpr const char* kBackend = "ProcessGroupGloo";
constexpr std::initializer_list<DType> kDtypes = {kFloat32, kFloat64, kInt64, kInt32, kUInt8};
// Reducing ops also take 16-bit floats (each pairwise step computed in float).
constexpr std::initializer_list<DType> kReducingDtypes = {kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBFloat16, kFloat16};

// f(TypeTag<T>{}) for a dtype CallChecks::dtype accepted.
template <typename F>
void dispatch_gloo(DType dtype, F&& f) {
  switch (dtype) {
    case kFloat32: return f(TypeTag<float>{});
    case kFloat64: return f(TypeTag<double>{});
    case kInt64: return f(TypeTag<int64_t>{});
    case kInt32: return f(TypeTag<int32_t>{});
    case kUInt8: return f(TypeTag<uint8_t>{});
    case kBFloat16: return f(TypeTag<BFloat16>{});
    case kFloat16: return f(TypeTag<Half>{});
    default: break;
  }
  BRISK_FAIL("ProcessGroupGloo: dtype {} reached the transport unchecked", dtype);
}

}  // namespace

struct ProcessGroupGloo::Impl {
  std::shared_ptr<Store> store;
  int rank;
  int size;
  ProcessGroupOptions options;
  std::string name;
  std::shared_ptr<gloo::transport::Device> device;
  std::shared_ptr<gloo::rendezvous::Context> context;

  std::mutex seq_mutex;
  int64_t next_seq = 0;
  std::string broken;  // the first failure; worker thread only

  // Destroyed first (declared last): their threads finish before the context goes.
  std::unique_ptr<Worker> p2p_waiter;
  std::unique_ptr<Worker> worker;

  std::string where() const { return fmt::format("ProcessGroupGloo '{}' rank {}/{}", name, rank, size); }

  // Queues `body` (the transport part of one collective); then `staging` copies its results
  // back to the device (null: nothing staged).
  std::shared_ptr<Work> collective(Signature sig, std::shared_ptr<HostStaging> staging,
                                   std::function<void(uint32_t tag)> body) {
    {
      std::lock_guard<std::mutex> lock(seq_mutex);
      sig.seq = next_seq++;
    }
    auto work = std::make_shared<WorkGloo>();
    worker->push({work, [this, sig, staging = std::move(staging), body = std::move(body)] {
                    run(sig, body);
                    if (staging) staging->copy_back();
                  }});
    return work;
  }

  void run(const Signature& sig, const std::function<void(uint32_t)>& body) {
    BRISK_CHECK(broken.empty(), "{}: {} #{} not run: the group failed earlier: {}", where(),
                op_name(static_cast<OpKind>(sig.op)), sig.seq, broken);
    auto start = Clock::now();
    std::string desync;
    try {
      store->set(fmt::format("seq/{}", rank), std::to_string(sig.seq));
      if (options.check_desync) desync = check_desync(sig);
      if (desync.empty()) body(static_cast<uint32_t>(sig.seq) * 2);
    } catch (const std::exception& e) {
      fail(sig, start, e.what());
    }
    // Every rank saw the same signatures, so all skip this op and the group stays usable.
    BRISK_CHECK(desync.empty(), "{}", desync);
  }

  // "" when every rank called the same thing, else the message naming each rank's call.
  std::string check_desync(const Signature& mine) {
    std::vector<Signature> all(static_cast<size_t>(size));
    gloo::AllgatherOptions o(context);
    o.setInput(reinterpret_cast<int64_t*>(const_cast<Signature*>(&mine)), kSignatureWords);
    o.setOutput(reinterpret_cast<int64_t*>(all.data()), kSignatureWords * all.size());
    o.setTag(static_cast<uint32_t>(mine.seq) * 2 + 1);
    o.setTimeout(options.timeout);
    gloo::allgather(o);
    std::map<std::string, std::vector<int>> calls;
    for (int r = 0; r < size; ++r) calls[all[static_cast<size_t>(r)].str()].push_back(r);
    if (calls.size() == 1) return "";
    std::vector<std::string> lines;
    for (const auto& [call, ranks] : calls) lines.push_back(fmt::format("ranks [{}] called {}", fmt::join(ranks, ", "), call));
    return fmt::format("{}: collective desync at #{}: {}", where(), mine.seq, fmt::join(lines, "; "));
  }

  // Names the ranks that never entered collective #seq, asking the store for at most 3 s
  // (the store's host, rank 0, may be the one that died).
  std::string absent_ranks(int64_t seq) {
    auto result = std::make_shared<std::promise<std::string>>();
    auto future = result->get_future();
    std::thread([store = store, result, seq, size = size] {
      try {
        std::vector<int> absent;
        for (int r = 0; r < size; ++r) {
          std::string key = fmt::format("seq/{}", r);
          if (!store->check({key}) || std::stoll(store->get_string(key)) < seq) absent.push_back(r);
        }
        result->set_value(absent.empty() ? std::string("none (every rank entered it; a peer died or dropped out during it)")
                                         : fmt::format("[{}]", fmt::join(absent, ", ")));
      } catch (const std::exception& e) {
        result->set_value(fmt::format("unknown: the store does not answer ({}); rank 0 hosts it and may have died",
                                      e.what()));
      }
    }).detach();
    if (future.wait_for(std::chrono::seconds(3)) != std::future_status::ready) {
      return "unknown: the store did not answer within 3 s";
    }
    return future.get();
  }

  [[noreturn]] void fail(const Signature& sig, Clock::time_point start, const std::string& cause) {
    auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    std::string op = fmt::format("{} #{}", op_name(static_cast<OpKind>(sig.op)), sig.seq);
    broken = fmt::format("{}: {} failed after {} ms (timeout {} ms): {}. Ranks that never entered {}: {}", where(), op,
                         elapsed, options.timeout.count(), cause, op, absent_ranks(sig.seq));
    // The other ranks fail at about the same moment and ask the store too; rank 0 hosts it,
    // so give them time to read it before this failure ends the process.
    std::this_thread::sleep_for(std::chrono::seconds(1));
    BRISK_FAIL("{}", broken);
  }

  // Point-to-point: posted in order on the worker, waited for on p2p_waiter, so posting
  // never blocks the operations queued after it.
  // `tensor` is host memory (staged by `staging`, which copies a received tensor back).
  std::shared_ptr<Work> p2p(bool is_send, Tensor tensor, std::shared_ptr<HostStaging> staging, int peer, int tag) {
    auto work = std::make_shared<WorkGloo>();
    std::string what = fmt::format("{} {} rank {} (tag {})", where(), is_send ? "send to" : "recv from", peer, tag);
    auto posted = std::make_shared<WorkGloo>();
    worker->push({posted, [this, work, is_send, tensor, staging, peer, tag, what] {
                    try {
                      BRISK_CHECK(broken.empty(), "the group failed earlier: {}", broken);
                      std::shared_ptr<gloo::transport::UnboundBuffer> buffer =
                          context->createUnboundBuffer(tensor.raw_data(), tensor.nbytes());
                      uint64_t slot = (uint64_t{0xff} << 56) | static_cast<uint32_t>(tag);
                      if (is_send) buffer->send(peer, slot);
                      else buffer->recv(peer, slot);
                      p2p_waiter->push({std::make_shared<WorkGloo>(), [this, buffer, work, tensor, staging, is_send, what] {
                                          try {
                                            if (is_send) buffer->waitSend(options.timeout);
                                            else buffer->waitRecv(options.timeout);
                                            staging->copy_back();
                                            work->finish(nullptr);
                                          } catch (const std::exception& e) {
                                            work->finish(std::make_exception_ptr(
                                                Error(fmt::format("{} failed: {}", what, e.what()))));
                                          }
                                        }});
                    } catch (const std::exception& e) {
                      work->finish(std::make_exception_ptr(Error(fmt::format("{} failed: {}", what, e.what()))));
                    }
                  }});
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
  impl_->p2p_waiter = std::make_unique<Worker>();
  impl_->worker = std::make_unique<Worker>();
}

ProcessGroupGloo::~ProcessGroupGloo() {
  impl_->worker.reset();
  impl_->p2p_waiter.reset();
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
  Signature sig{static_cast<int64_t>(OpKind::kBroadcast), 0, tensor.numel(), static_cast<int64_t>(tensor.dtype()), root};
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
  Signature sig{static_cast<int64_t>(OpKind::kAllReduce), 0, tensor.numel(), static_cast<int64_t>(tensor.dtype()), -1,
                static_cast<int64_t>(op)};
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
  Signature sig{static_cast<int64_t>(OpKind::kReduce), 0, tensor.numel(), static_cast<int64_t>(tensor.dtype()), root,
                static_cast<int64_t>(op)};
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
  Signature sig{static_cast<int64_t>(OpKind::kAllGather), 0, input.numel(), static_cast<int64_t>(input.dtype())};
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
  Signature sig{static_cast<int64_t>(OpKind::kGather), 0, input.numel(), static_cast<int64_t>(input.dtype()), root};
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
  Signature sig{static_cast<int64_t>(OpKind::kScatter), 0, output.numel(), static_cast<int64_t>(output.dtype()), root};
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
  Signature sig{static_cast<int64_t>(OpKind::kReduceScatter), 0, output.numel(), static_cast<int64_t>(output.dtype()),
                -1, static_cast<int64_t>(op)};
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
  Signature sig{static_cast<int64_t>(OpKind::kAllToAll), 0, -1, static_cast<int64_t>(dtype)};
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
  Signature sig{static_cast<int64_t>(OpKind::kBarrier)};
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
