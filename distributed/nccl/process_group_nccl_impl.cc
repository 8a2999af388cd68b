#include "distributed/nccl/process_group_nccl_impl.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include "cuda/device.h"
#include "cuda/error.h"
#include "cuda/event.h"
#include "cuda/memory.h"
#include "cuda/stream.h"
#include "distributed/collective_checks.h"
#include "distributed/health/collective_event.h"
#include "distributed/nccl/nccl_teardown.h"
#include "tensor/error.h"

namespace brisk::dist {
namespace {

// How often the teardown looks at the last queued operations.
constexpr auto kTeardownPoll = std::chrono::milliseconds(10);

// The groups' streams. Never destroyed: tensors used by a collective record its stream with
// the caching allocator (cuda::record_stream), and a tensor freed after its group is gone
// makes the allocator record an event on that stream, which must still exist. A group gives
// its stream back once its work finished, for the next group on that device.
class StreamPool {
 public:
  static StreamPool& instance() {
    static auto* pool = new StreamPool();
    return *pool;
  }
  cudaStream_t acquire(int device) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& free = free_[device];
    if (free.empty()) return (new cuda::Stream(device))->handle();  // intentionally never destroyed
    cudaStream_t stream = free.back();
    free.pop_back();
    return stream;
  }
  void release(int device, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_[device].push_back(stream);
  }

 private:
  std::mutex mutex_;
  std::map<int, std::vector<cudaStream_t>> free_;
};

}  // namespace

ncclDataType_t nccl_dtype(DType dtype) {
  switch (dtype) {
    case kFloat32: return ncclFloat32;
    case kFloat64: return ncclFloat64;
    case kFloat16: return ncclFloat16;
    case kBFloat16: return ncclBfloat16;
    case kInt64: return ncclInt64;
    case kInt32: return ncclInt32;
    case kUInt8: return ncclUint8;
    case kBool: return ncclUint8;
  }
  BRISK_FAIL("ProcessGroupNCCL: dtype {} reached NCCL unchecked", dtype_name(dtype));
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM: return ncclSum;
    case ReduceOp::PRODUCT: return ncclProd;
    case ReduceOp::MIN: return ncclMin;
    case ReduceOp::MAX: return ncclMax;
    case ReduceOp::AVG: return ncclAvg;
  }
  BRISK_FAIL("ProcessGroupNCCL: unknown ReduceOp");
}

Bytes NcclCalls::unique_id() {
  ncclUniqueId id;
  BRISK_NCCL_CHECK(ncclGetUniqueId(&id));
  const auto* bytes = reinterpret_cast<const uint8_t*>(&id);
  return Bytes(bytes, bytes + sizeof(id));
}

void NcclCalls::init_rank(const Bytes& bytes, int size, int rank) {
  ncclUniqueId id;
  BRISK_CHECK(bytes.size() == sizeof(id), "ProcessGroupNCCL: rank {}: the store's NCCL id has {} bytes, expected {}",
              rank, bytes.size(), sizeof(id));
  std::memcpy(&id, bytes.data(), sizeof(id));
  cuda::DeviceGuard guard(device_);
  BRISK_NCCL_CHECK(ncclCommInitRank(&comm_, size, id, rank));
}

void NcclCalls::abort() noexcept {
  if (comm_ != nullptr) ncclCommAbort(comm_);
}

bool NcclCalls::destroy() noexcept { return ncclCommDestroy(comm_) == ncclSuccess; }

ProcessGroupNCCL::Impl::Impl(std::shared_ptr<Store> store_, int rank_, int size_, ProcessGroupOptions options_,
                             Device device)
    : store(std::move(store_)), rank(rank_), size(size_), options(options_), device_(device.index), nccl_(device_) {
  BRISK_CHECK(device.is_cuda(), "ProcessGroupNCCL: rank {}: the group's device must be a CUDA device, got {}", rank_,
              device);
  check_group_arguments("ProcessGroupNCCL", store.get(), rank, size, options);
  const std::chrono::milliseconds beat_timeout = heartbeat_timeout(options);  // a malformed setting fails first
  cuda::check_device(device_);
  communicator_ = std::make_unique<Communicator>(*store, rank, size, options.timeout, nccl_);
  stream_ = StreamPool::instance().acquire(device_);
  // Started once every rank arrived (the communicator waited for them), so no rank is silent
  // yet. Always verifying, whatever check_desync says: NCCL itself may complete a mismatched
  // collective silently (garbage in, garbage out) where Gloo's tags make it fail, and the
  // comparison runs in the background at no cost to the collectives.
  watchdog_ = std::make_unique<Watchdog>(
      *store, rank, size, options, beat_timeout, /*verify=*/true, fmt::format("ProcessGroupNCCL: rank {}", rank),
      [this](const std::string& m) { abort_and_exit(m); }, [this](Watchdog& watchdog) { poll(watchdog); });
}

ProcessGroupNCCL::Impl::~Impl() {
  // The watchdog (which polls the work and may abort the communicator) stops first.
  watchdog_.reset();
  // After a peer died mid-collective the queued work never finishes (nccl_teardown.h).
  const bool finished = drain_before_destroy(
      [this] {
        cudaError_t state = cuda::settle_query(cudaStreamQuery(stream_));
        if (state == cudaSuccess) return QueuedWork::kFinished;
        ncclResult_t async = ncclSuccess;
        ncclCommGetAsyncError(nccl_.comm(), &async);
        if (state != cudaErrorNotReady || (async != ncclSuccess && async != ncclInProgress)) return QueuedWork::kFailed;
        return QueuedWork::kRunning;
      },
      options.timeout, kTeardownPoll);
  if (finished && nccl_.destroy()) {
    StreamPool::instance().release(device_, stream_);
    return;
  }
  // The stream may still hold work of the aborted communicator: it is not handed out again.
  std::fprintf(stderr, "ProcessGroupNCCL: rank %d: %s; aborting the communicator\n", rank,
               finished ? "destroying the communicator failed"
                        : "the queued collectives did not finish within the timeout or failed");
  communicator_->abort();
}

std::shared_ptr<Work> ProcessGroupNCCL::Impl::collective(CollectiveSignature sig, const std::vector<Tensor>& tensors,
                                                         bool blocking, const Launch& launch) {
  std::lock_guard<std::mutex> lock(launch_mutex_);
  sig.seq = seq_++;
  watchdog_->monitor().record(sig);
  profiler::RecordScope scope(
      profiler::Category::Collective, [&] { return collective_event_name("nccl", sig); },
      [&] { return collective_event_args(sig, "(unnamed)", size); });
  return enqueue(sig.str(), sig.seq, tensors, blocking, launch);
}

std::shared_ptr<Work> ProcessGroupNCCL::Impl::p2p(const std::string& call, const std::vector<Tensor>& tensors,
                                                  const Launch& launch) {
  std::lock_guard<std::mutex> lock(launch_mutex_);
  return enqueue(fmt::format("{} (point-to-point #{})", call, p2p_seq_++), -1, tensors, false, launch);
}

std::shared_ptr<Work> ProcessGroupNCCL::Impl::enqueue(const std::string& label, int64_t seq,
                                                      const std::vector<Tensor>& tensors, bool blocking,
                                                      const Launch& launch) {
  cuda::DeviceGuard guard(device_);
  cuda::Event ready;
  ready.record(cuda::current_stream(device_));
  ready.wait(stream_);
  launch(nccl_.comm(), stream_);
  for (const Tensor& t : tensors) cuda::record_stream(t, stream_);
  auto work = std::make_shared<WorkNCCL>(label, seq, device_, tensors, blocking);
  work->record_end(stream_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.push_back(work);
  }
  return work;
}

void ProcessGroupNCCL::Impl::poll(Watchdog& watchdog) {
  cuda::DeviceGuard guard(device_);
  std::shared_ptr<WorkNCCL> oldest;
  std::string cuda_error;  // a sticky one (e.g. a faulting kernel): no later work on this device can finish
  {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      pending_.erase(std::remove_if(pending_.begin(), pending_.end(),
                                    [&](const std::shared_ptr<WorkNCCL>& w) {
                                      if (!w->is_completed()) return false;
                                      if (w->seq() >= 0) watchdog.monitor().finished(w->seq());
                                      return true;
                                    }),
                     pending_.end());
    } catch (const std::exception& e) {
      cuda_error = e.what();
    }
    if (!pending_.empty()) oldest = pending_.front();
  }
  ncclResult_t async = ncclSuccess;
  ncclCommGetAsyncError(nccl_.comm(), &async);
  std::string failure;
  if (!cuda_error.empty())
    failure = fmt::format("CUDA error while checking {}: {}", oldest ? oldest->label() : "the queued collectives",
                          cuda_error);
  else if (async != ncclSuccess && async != ncclInProgress)
    failure = fmt::format("{}: NCCL reported {} ({}); a peer may have died",
                          oldest ? oldest->label() : "after the last collective", ncclGetErrorString(async),
                          ncclGetLastError(nccl_.comm()));
  else if (oldest && WorkNCCL::Clock::now() - oldest->start() > options.timeout)
    failure = fmt::format("{} did not finish within {} ms", oldest->label(), options.timeout.count());
  if (!failure.empty()) abort_and_exit(watchdog.failure(failure, oldest ? oldest->seq() : -1));
}

void ProcessGroupNCCL::Impl::abort_and_exit(const std::string& message) {
  std::fprintf(stderr, "%s; aborting the communicator and exiting\n", message.c_str());
  std::fflush(stderr);
  communicator_->abort();
  std::_Exit(1);
}

}  // namespace brisk::dist
