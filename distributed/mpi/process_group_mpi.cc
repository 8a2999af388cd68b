#include "distributed/mpi/process_group_mpi.h"

#include <climits>
#include <thread>

#include "distributed/backend_registry.h"
#include "distributed/collective_checks.h"
#include "distributed/health/heartbeat.h"
#include "distributed/mpi/mpi_library.h"
#include "distributed/mpi/transport_mode.h"
#include "distributed/queued/queued_group.h"
#include "distributed/rendezvous.h"
#include "tensor/error.h"
#include "tensor/native/ops.h"

namespace brisk::dist {
namespace {

// Every dtype but bool in every operation; float16 and bfloat16 reduce through float32.
constexpr OperationChecks kChecks("ProcessGroupMPI", {kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBFloat16, kFloat16},
                                  {kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBFloat16, kFloat16});

bool is_16_bit(DType d) { return d == kBFloat16 || d == kFloat16; }

// MPI's type for moving a dtype's elements; 16-bit floats move as their bits (MPI has no such
// floating types) and are reduced in float32 (reducible()).
MPI_Datatype mpi_type(DType d) {
  switch (d) {
    case DType::Float32: return MPI_FLOAT;
    case DType::Float64: return MPI_DOUBLE;
    case DType::Int64: return MPI_INT64_T;
    case DType::Int32: return MPI_INT32_T;
    case DType::UInt8: return MPI_UINT8_T;
    case DType::BFloat16:
    case DType::Float16: return MPI_UINT16_T;
    default: BRISK_FAIL("ProcessGroupMPI: no MPI type for dtype {}", d);
  }
}

// AVG sums, then divides (divide()).
MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::AVG: return MPI_SUM;
    case ReduceOp::PRODUCT: return MPI_PROD;
    case ReduceOp::MIN: return MPI_MIN;
    case ReduceOp::MAX: return MPI_MAX;
  }
  BRISK_FAIL("ProcessGroupMPI: unknown ReduceOp");
}

// MPI counts are int.
int count_of(int64_t n, const char* op) {
  BRISK_CHECK(n <= INT_MAX, "ProcessGroupMPI {}: {} elements exceed MPI's count limit (2^31 - 1); split the tensor", op,
              n);
  return static_cast<int>(n);
}

// A tensor a reduction can run on in place, beside `t` (host or device memory, as the transport
// gets it): `t` itself, or for 16-bit floats a float32 copy, so the result is the float32
// reduction rounded once (finish_reduction copies it back).
Tensor reducible(const Tensor& t) { return is_16_bit(t.dtype()) ? native::to(t, t.device(), kFloat32) : t; }

// AVG's division by the group's size, where `t` lives: floating point divides; integers
// truncate toward zero, as C++ and PyTorch do, exactly for every int64: fmod takes the
// remainder off, float64 gets the quotient of the rest within 2^11, and the rest of that,
// a small multiple of `size`, corrects it exactly.
void divide(Tensor& t, int size) {
  if (is_floating_point(t.dtype())) {
    native::binary_(BinaryOp::Div, t, Scalar(size));
    return;
  }
  if (size == 1) return;
  auto quotient = [&](const Tensor& multiple) {  // of size
    return native::to(native::binary(BinaryOp::Div, native::to(multiple, multiple.device(), kFloat64), Scalar(size)),
                      multiple.device(), t.dtype());
  };
  Tensor whole = native::binary(BinaryOp::Sub, t, native::binary(BinaryOp::Fmod, t, Scalar(size)), OpParams{1.0});
  Tensor rough = quotient(whole);
  Tensor rest = native::binary(BinaryOp::Sub, whole, native::binary(BinaryOp::Mul, rough, Scalar(size)), OpParams{1.0});
  native::copy_(t, native::binary(BinaryOp::Add, rough, quotient(rest), OpParams{1.0}));
}

void finish_reduction(Tensor t, Tensor reduced, ReduceOp op, int size) {
  if (op == ReduceOp::AVG) divide(reduced, size);
  if (!reduced.is_same(t)) native::copy_(t, reduced);
}

// `pieces` one after the other in a new flat buffer beside them, `spare` elements longer.
Tensor pack(const std::vector<Tensor>& pieces, int64_t spare = 0) {
  int64_t total = spare;
  for (const Tensor& piece : pieces) total += piece.numel();
  Tensor flat = native::empty({total}, TensorOptions(pieces[0].dtype()).device(pieces[0].device()));
  int64_t offset = 0;
  for (const Tensor& piece : pieces) {
    Tensor slot = native::view(native::narrow(flat, 0, offset, piece.numel()), piece.sizes());
    native::copy_(slot, piece);
    offset += piece.numel();
  }
  return flat;
}

// The flat buffer's elements into `pieces`, one after the other.
void unpack(const Tensor& flat, const std::vector<Tensor>& pieces) {
  int64_t offset = 0;
  for (Tensor piece : pieces) {
    native::copy_(piece, native::view(native::narrow(flat, 0, offset, piece.numel()), piece.sizes()));
    offset += piece.numel();
  }
}

void* at(const Tensor& t) { return TransportBuffers::address(t); }

}  // namespace

struct ProcessGroupMPI::Impl {
  Impl(std::shared_ptr<Store> store, int rank_, int size_, const ProcessGroupOptions& options_, std::string name_)
      : rank(rank_), size(size_), options(options_), name(std::move(name_)), device(options.device.value_or(kCPU)) {
    const std::string where = fmt::format("ProcessGroupMPI '{}' rank {}/{}", name, rank, size);
    check_group_arguments(fmt::format("ProcessGroupMPI '{}'", name), store.get(), rank, size, options);
    const std::chrono::milliseconds beat_timeout = heartbeat_timeout(options);
    mpi::ensure_started();
    mode = mpi_transport_mode(where, device, options, mpi::cuda_awareness());
    comm = create_communicator(*store, where);
    queue = std::make_unique<QueuedGroup>("mpi", name, where, std::move(store), rank, size, options, beat_timeout);
  }

  ~Impl() {
    queue.reset();  // runs what is queued first
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && comm != MPI_COMM_NULL) mpi::call([&] { MPI_Comm_free(&comm); });
  }

  // The group's communicator: its members publish their MPI ranks in the group's store, wait
  // for each other there (a missing member is named, and nothing has called MPI yet), then
  // create it together (MPI_Comm_create_group: collective over the members only).
  MPI_Comm create_communicator(Store& store, const std::string& where) {
    const int world = mpi::world_size();
    BRISK_CHECK(size <= world, "{}: the group has {} ranks, but MPI started {} processes (MPI_COMM_WORLD)", where, size,
                world);
    const std::string mine = std::to_string(mpi::world_rank());
    store.set(fmt::format("mpi_rank/{}", rank), Bytes(mine.begin(), mine.end()));
    std::vector<std::string> keys;
    for (int r = 0; r < size; ++r) keys.push_back(fmt::format("mpi_rank/{}", r));
    const auto timeout = rendezvous_timeout(options);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::vector<int> missing;
    for (;;) {
      missing.clear();
      for (int r = 0; r < size; ++r)
        if (!store.check({keys[static_cast<size_t>(r)]})) missing.push_back(r);
      if (missing.empty() || std::chrono::steady_clock::now() > deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    BRISK_CHECK(missing.empty(),
                "{}: creating the group: ranks [{}] of {} did not join within the rendezvous timeout ({} ms); every "
                "member of a group must create it (dist::new_group is called by every rank, in the same order)",
                where, fmt::join(missing, ", "), size, timeout.count());
    std::vector<int> world_ranks;
    for (const std::string& key : keys) {
      Bytes value = store.get(key);
      world_ranks.push_back(std::stoi(std::string(value.begin(), value.end())));
    }
    MPI_Comm created = MPI_COMM_NULL;
    mpi::call([&] {
      MPI_Group world_group, group;
      mpi::check(MPI_Comm_group(MPI_COMM_WORLD, &world_group), "MPI_Comm_group");
      mpi::check(MPI_Group_incl(world_group, size, world_ranks.data(), &group), "MPI_Group_incl");
      mpi::check(MPI_Comm_create_group(MPI_COMM_WORLD, group, 0, &created), "MPI_Comm_create_group");
      mpi::check(MPI_Comm_set_errhandler(created, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
      MPI_Group_free(&group);
      MPI_Group_free(&world_group);
    });
    return created;
  }

  // Where this operation's tensors go for MPI, decided at the call (transport_buffers.h).
  std::shared_ptr<TransportBuffers> buffers() const { return std::make_shared<TransportBuffers>(device, mode); }

  // One collective, waited for at most the group's timeout. `call` makes its MPI call: the
  // nonblocking one, filling the request it is given, or, given null, the blocking one. Open MPI
  // takes device memory in its blocking collectives only (its CUDA notes list the nonblocking
  // ones as not accepting device buffers), so where MPI gets device memory (`buffers` direct)
  // the blocking call runs on a thread of its own (mpi::run_blocking), once the device work
  // that filled the buffers is done; `call` then owns what it uses (captures by value, tensors
  // included), as a call past its timeout goes on using it. Barrier has no `buffers`.
  void run(const char* what, const TransportBuffers* buffers, std::function<int(MPI_Request*)> call) {
    const std::string name = fmt::format("MPI {}", what);
    try {
      if (buffers != nullptr && buffers->device_memory()) {
        buffers->await_device_work();
        mpi::run_blocking([call, name] { mpi::check(call(nullptr), name.c_str()); }, options.timeout, name);
      } else {
        MPI_Request request = MPI_REQUEST_NULL;
        mpi::call([&] { mpi::check(call(&request), name.c_str()); });
        mpi::wait(request, options.timeout, name);
      }
    } catch (...) {
      mpi::note_failure();
      throw;
    }
  }

  int rank;
  int size;
  ProcessGroupOptions options;
  std::string name;
  Device device;
  TransportMode mode = TransportMode::kStaged;
  MPI_Comm comm = MPI_COMM_NULL;
  std::unique_ptr<QueuedGroup> queue;
};

ProcessGroupMPI::ProcessGroupMPI(std::shared_ptr<Store> store, int rank, int size, ProcessGroupOptions options,
                                 std::string name)
    : ProcessGroup(rank, size, options.device.value_or(kCPU)),
      impl_(std::make_unique<Impl>(std::move(store), rank, size, options, std::move(name))) {}

ProcessGroupMPI::~ProcessGroupMPI() = default;

std::shared_ptr<Work> ProcessGroupMPI::broadcast(Tensor& tensor, int root) {
  const CollectiveSignature sig = kChecks.broadcast(*this, tensor, root);
  auto buffers = impl_->buffers();
  Tensor t = buffers->output(tensor, true);
  return impl_->queue->collective(sig, buffers, [this, buffers, t, root](uint32_t) {
    const int n = count_of(t.numel(), "broadcast");
    const MPI_Datatype type = mpi_type(t.dtype());
    const MPI_Comm comm = impl_->comm;
    impl_->run("broadcast", buffers.get(), [=](MPI_Request* r) {
      return r ? MPI_Ibcast(at(t), n, type, root, comm, r) : MPI_Bcast(at(t), n, type, root, comm);
    });
  });
}

std::shared_ptr<Work> ProcessGroupMPI::all_reduce(Tensor& tensor, ReduceOp op) {
  const CollectiveSignature sig = kChecks.all_reduce(*this, tensor, op);
  auto buffers = impl_->buffers();
  Tensor t = buffers->output(tensor, true);
  return impl_->queue->collective(sig, buffers, [this, buffers, t, op](uint32_t) {
    Tensor reduced = reducible(t);
    const int n = count_of(reduced.numel(), "all_reduce");
    const MPI_Datatype type = mpi_type(reduced.dtype());
    const MPI_Op mop = mpi_op(op);
    const MPI_Comm comm = impl_->comm;
    impl_->run("all_reduce", buffers.get(), [=](MPI_Request* r) {
      return r ? MPI_Iallreduce(MPI_IN_PLACE, at(reduced), n, type, mop, comm, r)
               : MPI_Allreduce(MPI_IN_PLACE, at(reduced), n, type, mop, comm);
    });
    finish_reduction(t, reduced, op, size());
  });
}

std::shared_ptr<Work> ProcessGroupMPI::reduce(Tensor& tensor, int root, ReduceOp op) {
  const CollectiveSignature sig = kChecks.reduce(*this, tensor, root, op);
  auto buffers = impl_->buffers();
  Tensor t = buffers->output(tensor, true);
  return impl_->queue->collective(sig, buffers, [this, buffers, t, root, op](uint32_t) {
    Tensor reduced = reducible(t);
    const int n = count_of(reduced.numel(), "reduce");
    const MPI_Datatype type = mpi_type(reduced.dtype());
    const MPI_Op mop = mpi_op(op);
    const MPI_Comm comm = impl_->comm;
    const bool is_root = rank() == root;
    impl_->run("reduce", buffers.get(), [=](MPI_Request* r) {
      const void* send = is_root ? MPI_IN_PLACE : at(reduced);
      return r ? MPI_Ireduce(send, at(reduced), n, type, mop, root, comm, r)
               : MPI_Reduce(send, at(reduced), n, type, mop, root, comm);
    });
    if (is_root) finish_reduction(t, reduced, op, size());
  });
}

std::shared_ptr<Work> ProcessGroupMPI::all_gather(std::vector<Tensor>& outputs, const Tensor& input) {
  const CollectiveSignature sig = kChecks.all_gather(*this, outputs, input);
  auto buffers = impl_->buffers();
  Tensor in = buffers->input(input);
  std::vector<Tensor> outs;
  for (const Tensor& out : outputs) outs.push_back(buffers->output(out, false));
  return impl_->queue->collective(sig, buffers, [this, buffers, in, outs](uint32_t) {
    Tensor flat = native::empty({in.numel() * size()}, TensorOptions(in.dtype()).device(in.device()));
    const int n = count_of(in.numel(), "all_gather");
    count_of(flat.numel(), "all_gather");
    const MPI_Datatype type = mpi_type(in.dtype());
    const MPI_Comm comm = impl_->comm;
    impl_->run("all_gather", buffers.get(), [=](MPI_Request* r) {
      return r ? MPI_Iallgather(at(in), n, type, at(flat), n, type, comm, r)
               : MPI_Allgather(at(in), n, type, at(flat), n, type, comm);
    });
    unpack(flat, outs);
  });
}

std::shared_ptr<Work> ProcessGroupMPI::gather(std::vector<Tensor>& outputs, const Tensor& input, int root) {
  const CollectiveSignature sig = kChecks.gather(*this, outputs, input, root);
  const bool is_root = rank() == root;
  auto buffers = impl_->buffers();
  Tensor in = buffers->input(input);
  std::vector<Tensor> outs;
  if (is_root)
    for (const Tensor& out : outputs) outs.push_back(buffers->output(out, false));
  return impl_->queue->collective(sig, buffers, [this, buffers, in, outs, root, is_root](uint32_t) {
    Tensor flat =
        is_root ? native::empty({in.numel() * size()}, TensorOptions(in.dtype()).device(in.device())) : Tensor();
    const int n = count_of(in.numel(), "gather");
    if (is_root) count_of(flat.numel(), "gather");
    const MPI_Datatype type = mpi_type(in.dtype());
    const MPI_Comm comm = impl_->comm;
    impl_->run("gather", buffers.get(), [=](MPI_Request* r) {
      void* recv = is_root ? at(flat) : nullptr;
      return r ? MPI_Igather(at(in), n, type, recv, n, type, root, comm, r)
               : MPI_Gather(at(in), n, type, recv, n, type, root, comm);
    });
    if (is_root) unpack(flat, outs);
  });
}

std::shared_ptr<Work> ProcessGroupMPI::scatter(Tensor& output, const std::vector<Tensor>& inputs, int root) {
  const CollectiveSignature sig = kChecks.scatter(*this, output, inputs, root);
  const bool is_root = rank() == root;
  auto buffers = impl_->buffers();
  Tensor out = buffers->output(output, false);
  std::vector<Tensor> ins;
  if (is_root)
    for (const Tensor& in : inputs) ins.push_back(buffers->input(in));
  return impl_->queue->collective(sig, buffers, [this, buffers, out, ins, root, is_root](uint32_t) {
    Tensor flat = is_root ? pack(ins) : Tensor();
    const int n = count_of(out.numel(), "scatter");
    const MPI_Datatype type = mpi_type(out.dtype());
    const MPI_Comm comm = impl_->comm;
    impl_->run("scatter", buffers.get(), [=](MPI_Request* r) {
      void* send = is_root ? at(flat) : nullptr;
      return r ? MPI_Iscatter(send, n, type, at(out), n, type, root, comm, r)
               : MPI_Scatter(send, n, type, at(out), n, type, root, comm);
    });
  });
}

std::shared_ptr<Work> ProcessGroupMPI::reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op) {
  const CollectiveSignature sig = kChecks.reduce_scatter(*this, output, inputs, op);
  auto buffers = impl_->buffers();
  Tensor out = buffers->output(output, false);
  std::vector<Tensor> ins;
  for (const Tensor& in : inputs) ins.push_back(buffers->input(in));
  return impl_->queue->collective(sig, buffers, [this, buffers, out, ins, op](uint32_t) {
    Tensor flat = reducible(pack(ins));
    Tensor reduced =
        is_16_bit(out.dtype()) ? native::empty(out.sizes(), TensorOptions(kFloat32).device(out.device())) : out;
    const int n = count_of(out.numel(), "reduce_scatter");
    count_of(flat.numel(), "reduce_scatter");
    const MPI_Datatype type = mpi_type(reduced.dtype());
    const MPI_Op mop = mpi_op(op);
    const MPI_Comm comm = impl_->comm;
    impl_->run("reduce_scatter", buffers.get(), [=](MPI_Request* r) {
      return r ? MPI_Ireduce_scatter_block(at(flat), at(reduced), n, type, mop, comm, r)
               : MPI_Reduce_scatter_block(at(flat), at(reduced), n, type, mop, comm);
    });
    finish_reduction(out, reduced, op, size());
  });
}

std::shared_ptr<Work> ProcessGroupMPI::all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs) {
  const CollectiveSignature sig = kChecks.all_to_all(*this, outputs, inputs);
  auto buffers = impl_->buffers();
  std::vector<Tensor> ins, outs;
  for (const Tensor& in : inputs) ins.push_back(buffers->input(in));
  for (const Tensor& out : outputs) outs.push_back(buffers->output(out, false));
  return impl_->queue->collective(sig, buffers, [this, buffers, ins, outs](uint32_t) {
    std::vector<int> send_counts, send_offsets, recv_counts, recv_offsets;
    int64_t sent = 0, received = 0;
    for (const Tensor& in : ins) {
      send_counts.push_back(count_of(in.numel(), "all_to_all"));
      send_offsets.push_back(count_of(sent, "all_to_all"));
      sent += in.numel();
    }
    for (const Tensor& out : outs) {
      recv_counts.push_back(count_of(out.numel(), "all_to_all"));
      recv_offsets.push_back(count_of(received, "all_to_all"));
      received += out.numel();
    }
    // One spare element keeps both buffers allocated when a rank moves no data.
    Tensor send = pack(ins, 1);
    Tensor recv = native::empty({received + 1}, TensorOptions(ins[0].dtype()).device(ins[0].device()));
    const MPI_Datatype type = mpi_type(ins[0].dtype());
    const MPI_Comm comm = impl_->comm;
    impl_->run("all_to_all", buffers.get(), [=](MPI_Request* r) {
      return r ? MPI_Ialltoallv(at(send), send_counts.data(), send_offsets.data(), type, at(recv), recv_counts.data(),
                                recv_offsets.data(), type, comm, r)
               : MPI_Alltoallv(at(send), send_counts.data(), send_offsets.data(), type, at(recv), recv_counts.data(),
                               recv_offsets.data(), type, comm);
    });
    unpack(recv, outs);
  });
}

std::shared_ptr<Work> ProcessGroupMPI::barrier() {
  auto sig = CollectiveSignature::of(CollectiveKind::kBarrier);
  return impl_->queue->collective(sig, nullptr, [this](uint32_t) {
    const MPI_Comm comm = impl_->comm;
    impl_->run("barrier", nullptr, [comm](MPI_Request* r) { return MPI_Ibarrier(comm, r); });
  });
}

// Point-to-point: MPI_Isend and MPI_Irecv take device memory too.
std::shared_ptr<Work> ProcessGroupMPI::send(const Tensor& tensor, int dst, int tag) {
  kChecks.send(*this, tensor, dst);
  auto buffers = impl_->buffers();
  Tensor t = buffers->input(tensor);
  std::string op = fmt::format("send to rank {} (tag {})", dst, tag);
  return impl_->queue->p2p(true, dst, tag, op, buffers, [this, t, dst, tag, op]() -> std::function<void()> {
    auto request = std::make_shared<MPI_Request>(MPI_REQUEST_NULL);
    const int n = count_of(static_cast<int64_t>(t.nbytes()), "send");
    mpi::call([&] { mpi::check(MPI_Isend(at(t), n, MPI_BYTE, dst, tag, impl_->comm, request.get()), "MPI_Isend"); });
    return [this, request, t, op] { mpi::wait(*request, impl_->options.timeout, op); };
  });
}

std::shared_ptr<Work> ProcessGroupMPI::recv(Tensor& tensor, int src, int tag) {
  kChecks.recv(*this, tensor, src);
  auto buffers = impl_->buffers();
  Tensor t = buffers->output(tensor, false);
  std::string op = fmt::format("recv from rank {} (tag {})", src, tag);
  return impl_->queue->p2p(false, src, tag, op, buffers, [this, t, src, tag, op]() -> std::function<void()> {
    auto request = std::make_shared<MPI_Request>(MPI_REQUEST_NULL);
    const int n = count_of(static_cast<int64_t>(t.nbytes()), "recv");
    mpi::call([&] { mpi::check(MPI_Irecv(at(t), n, MPI_BYTE, src, tag, impl_->comm, request.get()), "MPI_Irecv"); });
    return [this, request, t, op] { mpi::wait(*request, impl_->options.timeout, op); };
  });
}

namespace {
const bool registered = register_process_group_backend(
    "mpi", [](std::shared_ptr<Store> store, int rank, int size, const ProcessGroupOptions& options) {
      return std::make_shared<ProcessGroupMPI>(std::move(store), rank, size, options);
    });
}  // namespace

}  // namespace brisk::dist
