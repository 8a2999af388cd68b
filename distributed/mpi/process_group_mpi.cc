#include "distributed/mpi/process_group_mpi.h"

#include <climits>
#include <cstring>
#include <thread>

#include "distributed/backend_registry.h"
#include "distributed/collective_checks.h"
#include "distributed/health/heartbeat.h"
#include "distributed/mpi/mpi_library.h"
#include "distributed/queued/host_reduce.h"
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

// AVG sums, then divides (host_reduce::divide).
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

// A host tensor a reduction can run on in place: `host` itself, or for 16-bit floats a float32
// copy, so the result is the float32 reduction rounded once (into_16_bit copies it back).
Tensor reducible(const Tensor& host) { return is_16_bit(host.dtype()) ? native::to(host, kCPU, kFloat32) : host; }
void finish_reduction(Tensor host, const Tensor& reduced, ReduceOp op, int size) {
  if (op == ReduceOp::AVG) {
    host_reduce::dispatch_numeric(reduced.dtype(), [&](auto t) {
      using T = typename decltype(t)::type;
      host_reduce::divide(reduced.data_ptr<T>(), reduced.numel(), size);
    });
  }
  if (!reduced.is_same(host)) native::copy_(host, reduced);
}

// One flat host buffer of `pieces` equal tensors, and back.
Tensor flat_of(const std::vector<Tensor>& pieces) { return native::cat(pieces, 0); }
void unflatten(const Tensor& flat, const std::vector<Tensor>& pieces) {
  int64_t offset = 0;
  for (const Tensor& piece : pieces) {
    std::memcpy(piece.raw_data(), static_cast<const char*>(flat.raw_data()) + offset, piece.nbytes());
    offset += static_cast<int64_t>(piece.nbytes());
  }
}

}  // namespace

struct ProcessGroupMPI::Impl {
  Impl(std::shared_ptr<Store> store, int rank_, int size_, const ProcessGroupOptions& options_, std::string name_)
      : rank(rank_), size(size_), options(options_), name(std::move(name_)) {
    const std::string where = fmt::format("ProcessGroupMPI '{}' rank {}/{}", name, rank, size);
    check_group_arguments(fmt::format("ProcessGroupMPI '{}'", name), store.get(), rank, size, options);
    const std::chrono::milliseconds beat_timeout = heartbeat_timeout(options);
    mpi::ensure_started();
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

  // Posts one nonblocking MPI call (`post` fills the request) and waits for it, at most the
  // group's timeout.
  void run(const char* what, const std::function<void(MPI_Request*)>& post) {
    MPI_Request request = MPI_REQUEST_NULL;
    mpi::call([&] { post(&request); });
    try {
      mpi::wait(request, options.timeout, fmt::format("MPI {}", what));
    } catch (...) {
      mpi::note_failure();
      throw;
    }
  }

  int rank;
  int size;
  ProcessGroupOptions options;
  std::string name;
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
  auto staging = std::make_shared<HostStaging>(device());
  Tensor host = staging->output(tensor, true);
  return impl_->queue->collective(sig, staging, [this, host, root](uint32_t) {
    const int n = count_of(host.numel(), "broadcast");
    impl_->run("broadcast", [&](MPI_Request* r) {
      mpi::check(MPI_Ibcast(host.raw_data(), n, mpi_type(host.dtype()), root, impl_->comm, r), "MPI_Ibcast");
    });
  });
}

std::shared_ptr<Work> ProcessGroupMPI::all_reduce(Tensor& tensor, ReduceOp op) {
  const CollectiveSignature sig = kChecks.all_reduce(*this, tensor, op);
  auto staging = std::make_shared<HostStaging>(device());
  Tensor host = staging->output(tensor, true);
  return impl_->queue->collective(sig, staging, [this, host, op](uint32_t) {
    Tensor reduced = reducible(host);
    const int n = count_of(reduced.numel(), "all_reduce");
    impl_->run("all_reduce", [&](MPI_Request* r) {
      mpi::check(
          MPI_Iallreduce(MPI_IN_PLACE, reduced.raw_data(), n, mpi_type(reduced.dtype()), mpi_op(op), impl_->comm, r),
          "MPI_Iallreduce");
    });
    finish_reduction(host, reduced, op, size());
  });
}

std::shared_ptr<Work> ProcessGroupMPI::reduce(Tensor& tensor, int root, ReduceOp op) {
  const CollectiveSignature sig = kChecks.reduce(*this, tensor, root, op);
  auto staging = std::make_shared<HostStaging>(device());
  Tensor host = staging->output(tensor, true);
  return impl_->queue->collective(sig, staging, [this, host, root, op](uint32_t) {
    Tensor reduced = reducible(host);
    const int n = count_of(reduced.numel(), "reduce");
    const bool is_root = rank() == root;
    impl_->run("reduce", [&](MPI_Request* r) {
      mpi::check(MPI_Ireduce(is_root ? MPI_IN_PLACE : reduced.raw_data(), reduced.raw_data(), n,
                             mpi_type(reduced.dtype()), mpi_op(op), root, impl_->comm, r),
                 "MPI_Ireduce");
    });
    if (is_root) finish_reduction(host, reduced, op, size());
  });
}

std::shared_ptr<Work> ProcessGroupMPI::all_gather(std::vector<Tensor>& outputs, const Tensor& input) {
  const CollectiveSignature sig = kChecks.all_gather(*this, outputs, input);
  auto staging = std::make_shared<HostStaging>(device());
  Tensor in = staging->input(input);
  std::vector<Tensor> outs;
  for (const Tensor& out : outputs) outs.push_back(staging->output(out, false));
  return impl_->queue->collective(sig, staging, [this, in, outs](uint32_t) {
    Tensor flat = native::empty({in.numel() * size()}, TensorOptions(in.dtype()));
    const int n = count_of(in.numel(), "all_gather");
    count_of(flat.numel(), "all_gather");
    impl_->run("all_gather", [&](MPI_Request* r) {
      mpi::check(MPI_Iallgather(in.raw_data(), n, mpi_type(in.dtype()), flat.raw_data(), n, mpi_type(in.dtype()),
                                impl_->comm, r),
                 "MPI_Iallgather");
    });
    unflatten(flat, outs);
  });
}

std::shared_ptr<Work> ProcessGroupMPI::gather(std::vector<Tensor>& outputs, const Tensor& input, int root) {
  const CollectiveSignature sig = kChecks.gather(*this, outputs, input, root);
  const bool is_root = rank() == root;
  auto staging = std::make_shared<HostStaging>(device());
  Tensor in = staging->input(input);
  std::vector<Tensor> outs;
  if (is_root)
    for (const Tensor& out : outputs) outs.push_back(staging->output(out, false));
  return impl_->queue->collective(sig, staging, [this, in, outs, root, is_root](uint32_t) {
    Tensor flat = is_root ? native::empty({in.numel() * size()}, TensorOptions(in.dtype())) : Tensor();
    const int n = count_of(in.numel(), "gather");
    if (is_root) count_of(flat.numel(), "gather");
    impl_->run("gather", [&](MPI_Request* r) {
      mpi::check(MPI_Igather(in.raw_data(), n, mpi_type(in.dtype()), is_root ? flat.raw_data() : nullptr, n,
                             mpi_type(in.dtype()), root, impl_->comm, r),
                 "MPI_Igather");
    });
    if (is_root) unflatten(flat, outs);
  });
}

std::shared_ptr<Work> ProcessGroupMPI::scatter(Tensor& output, const std::vector<Tensor>& inputs, int root) {
  const CollectiveSignature sig = kChecks.scatter(*this, output, inputs, root);
  const bool is_root = rank() == root;
  auto staging = std::make_shared<HostStaging>(device());
  Tensor out = staging->output(output, false);
  std::vector<Tensor> ins;
  if (is_root)
    for (const Tensor& in : inputs) ins.push_back(staging->input(in));
  return impl_->queue->collective(sig, staging, [this, out, ins, root, is_root](uint32_t) {
    Tensor flat = is_root ? flat_of(ins) : Tensor();
    const int n = count_of(out.numel(), "scatter");
    impl_->run("scatter", [&](MPI_Request* r) {
      mpi::check(MPI_Iscatter(is_root ? flat.raw_data() : nullptr, n, mpi_type(out.dtype()), out.raw_data(), n,
                              mpi_type(out.dtype()), root, impl_->comm, r),
                 "MPI_Iscatter");
    });
  });
}

std::shared_ptr<Work> ProcessGroupMPI::reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op) {
  const CollectiveSignature sig = kChecks.reduce_scatter(*this, output, inputs, op);
  auto staging = std::make_shared<HostStaging>(device());
  Tensor out = staging->output(output, false);
  std::vector<Tensor> ins;
  for (const Tensor& in : inputs) ins.push_back(staging->input(in));
  return impl_->queue->collective(sig, staging, [this, out, ins, op](uint32_t) {
    Tensor flat = reducible(flat_of(ins));
    Tensor reduced = is_16_bit(out.dtype()) ? native::empty(out.shape(), TensorOptions(kFloat32)) : out;
    const int n = count_of(out.numel(), "reduce_scatter");
    count_of(flat.numel(), "reduce_scatter");
    impl_->run("reduce_scatter", [&](MPI_Request* r) {
      mpi::check(MPI_Ireduce_scatter_block(flat.raw_data(), reduced.raw_data(), n, mpi_type(reduced.dtype()),
                                           mpi_op(op), impl_->comm, r),
                 "MPI_Ireduce_scatter_block");
    });
    finish_reduction(out, reduced, op, size());
  });
}

std::shared_ptr<Work> ProcessGroupMPI::all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs) {
  const CollectiveSignature sig = kChecks.all_to_all(*this, outputs, inputs);
  auto staging = std::make_shared<HostStaging>(device());
  std::vector<Tensor> ins, outs;
  for (const Tensor& in : inputs) ins.push_back(staging->input(in));
  for (const Tensor& out : outputs) outs.push_back(staging->output(out, false));
  return impl_->queue->collective(sig, staging, [this, ins, outs](uint32_t) {
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
    const DType dtype = ins[0].dtype();
    // One spare element keeps both buffers allocated when a rank moves no data.
    Tensor send = native::empty({sent + 1}, TensorOptions(dtype)),
           recv = native::empty({received + 1}, TensorOptions(dtype));
    int64_t offset = 0;
    for (const Tensor& in : ins) {
      std::memcpy(static_cast<char*>(send.raw_data()) + offset, in.raw_data(), in.nbytes());
      offset += static_cast<int64_t>(in.nbytes());
    }
    impl_->run("all_to_all", [&](MPI_Request* r) {
      mpi::check(
          MPI_Ialltoallv(send.raw_data(), send_counts.data(), send_offsets.data(), mpi_type(dtype), recv.raw_data(),
                         recv_counts.data(), recv_offsets.data(), mpi_type(dtype), impl_->comm, r),
          "MPI_Ialltoallv");
    });
    unflatten(recv, outs);
  });
}

std::shared_ptr<Work> ProcessGroupMPI::barrier() {
  auto sig = CollectiveSignature::of(CollectiveKind::kBarrier);
  return impl_->queue->collective(sig, nullptr, [this](uint32_t) {
    impl_->run("barrier", [&](MPI_Request* r) { mpi::check(MPI_Ibarrier(impl_->comm, r), "MPI_Ibarrier"); });
  });
}

std::shared_ptr<Work> ProcessGroupMPI::send(const Tensor& tensor, int dst, int tag) {
  kChecks.send(*this, tensor, dst);
  auto staging = std::make_shared<HostStaging>(device());
  Tensor host = staging->input(tensor);
  std::string op = fmt::format("send to rank {} (tag {})", dst, tag);
  return impl_->queue->p2p(op, staging, [this, host, dst, tag, op]() -> std::function<void()> {
    auto request = std::make_shared<MPI_Request>(MPI_REQUEST_NULL);
    const int n = count_of(static_cast<int64_t>(host.nbytes()), "send");
    mpi::call([&] {
      mpi::check(MPI_Isend(host.raw_data(), n, MPI_BYTE, dst, tag, impl_->comm, request.get()), "MPI_Isend");
    });
    return [this, request, host, op] { mpi::wait(*request, impl_->options.timeout, op); };
  });
}

std::shared_ptr<Work> ProcessGroupMPI::recv(Tensor& tensor, int src, int tag) {
  kChecks.recv(*this, tensor, src);
  auto staging = std::make_shared<HostStaging>(device());
  Tensor host = staging->output(tensor, false);
  std::string op = fmt::format("recv from rank {} (tag {})", src, tag);
  return impl_->queue->p2p(op, staging, [this, host, src, tag, op]() -> std::function<void()> {
    auto request = std::make_shared<MPI_Request>(MPI_REQUEST_NULL);
    const int n = count_of(static_cast<int64_t>(host.nbytes()), "recv");
    mpi::call([&] {
      mpi::check(MPI_Irecv(host.raw_data(), n, MPI_BYTE, src, tag, impl_->comm, request.get()), "MPI_Irecv");
    });
    return [this, request, host, op] { mpi::wait(*request, impl_->options.timeout, op); };
  });
}

namespace {
const bool registered = register_process_group_backend(
    "mpi", [](std::shared_ptr<Store> store, int rank, int size, const ProcessGroupOptions& options) {
      return std::make_shared<ProcessGroupMPI>(std::move(store), rank, size, options);
    });
}  // namespace

}  // namespace brisk::dist
