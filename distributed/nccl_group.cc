#include "distributed/nccl_group.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda/device.h"
#include "cuda/error.h"
#include "cuda/event.h"
#include "cuda/memory.h"
#include "tensor/error.h"

namespace brisk::dist {
namespace {

// How often the watchdog looks at the queued operations and publishes this rank's progress.
constexpr auto kWatchInterval = std::chrono::milliseconds(100);

std::string desync_key(int64_t seq, int rank) { return fmt::format("desync/{}/{}", seq, rank); }
std::string progress_key(int rank) { return fmt::format("progress/{}", rank); }

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

ProcessGroupNCCL::Impl::Impl(std::shared_ptr<Store> store_, int rank_, int size_, ProcessGroupOptions options_,
                             Device device)
    : store(std::move(store_)), rank(rank_), size(size_), options(options_), device_(device.index) {
  BRISK_CHECK(device.is_cuda(), "ProcessGroupNCCL: rank {}: the group's device must be a CUDA device, got {}", rank_,
              device);
  BRISK_CHECK(store != nullptr, "ProcessGroupNCCL: no store");
  BRISK_CHECK(size > 0 && rank >= 0 && rank < size, "ProcessGroupNCCL: rank {} is outside [0, {})", rank, size);
}

ProcessGroupNCCL::Impl::~Impl() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
  if (comm_ != nullptr) {
    // Destructors do not throw: a failure here is reported, not raised.
    if (cudaStreamSynchronize(*stream_) != cudaSuccess || ncclCommDestroy(comm_) != ncclSuccess)
      std::fprintf(stderr, "ProcessGroupNCCL: rank %d: destroying the communicator failed\n", rank);
  }
}

void ProcessGroupNCCL::Impl::wait_for_all(const std::string& key_prefix, const std::string& what) {
  store->set(fmt::format("{}/{}", key_prefix, rank), std::string("1"));
  std::vector<std::string> keys;
  for (int r = 0; r < size; ++r) keys.push_back(fmt::format("{}/{}", key_prefix, r));
  try {
    store->wait(keys, options.timeout);
  } catch (const Error&) {
    std::vector<int> missing;
    for (int r = 0; r < size; ++r)
      if (!store->check({keys[r]})) missing.push_back(r);
    BRISK_FAIL("ProcessGroupNCCL: rank {}: {}: ranks {} did not arrive within {} ms", rank, what, missing,
               options.timeout.count());
  }
}

void ProcessGroupNCCL::Impl::create_communicator() {
  cuda::check_device(device_);
  cuda::DeviceGuard guard(device_);
  wait_for_all("init", "creating the NCCL communicator");
  ncclUniqueId id;
  if (rank == 0) {
    BRISK_NCCL_CHECK(ncclGetUniqueId(&id));
    store->set("unique_id", Bytes(reinterpret_cast<uint8_t*>(&id), reinterpret_cast<uint8_t*>(&id) + sizeof(id)));
  } else {
    Bytes bytes = store->get("unique_id");
    BRISK_CHECK(bytes.size() == sizeof(id), "ProcessGroupNCCL: the store's NCCL id has {} bytes, expected {}",
                bytes.size(), sizeof(id));
    std::memcpy(&id, bytes.data(), sizeof(id));
  }
  BRISK_NCCL_CHECK(ncclCommInitRank(&comm_, size, id, rank));
  stream_ = std::make_unique<cuda::Stream>(device_);
  watchdog_ = std::thread([this] { watch(); });
}

void ProcessGroupNCCL::Impl::check_desync(int64_t seq, const std::string& call) {
  store->set(desync_key(seq, rank), call);
  std::vector<std::string> keys;
  for (int r = 0; r < size; ++r) keys.push_back(desync_key(seq, r));
  try {
    store->wait(keys, options.timeout);
  } catch (const Error&) {
    std::vector<int> missing;
    for (int r = 0; r < size; ++r)
      if (!store->check({keys[r]})) missing.push_back(r);
    broken_ = fmt::format("ProcessGroupNCCL: rank {}: collective #{} ({}): ranks {} did not arrive within {} ms",
                          rank, seq, call, missing, options.timeout.count());
    BRISK_FAIL("{}", broken_);
  }
  std::vector<std::string> calls;
  bool same = true;
  for (int r = 0; r < size; ++r) {
    calls.push_back(r == rank ? call : store->get_string(keys[r]));
    same = same && calls[r] == call;
  }
  if (!same) {
    std::string each;
    for (int r = 0; r < size; ++r) each += fmt::format("{}rank {}: {}", r == 0 ? "" : ", ", r, calls[r]);
    broken_ = fmt::format("ProcessGroupNCCL: rank {}: ranks desynchronized at collective #{}: {}", rank, seq, each);
    BRISK_FAIL("{}", broken_);
  }
  // Every rank wrote this key only after reading all of the previous collective's.
  if (seq > 1) store->delete_key(desync_key(seq - 1, rank));
}

std::shared_ptr<Work> ProcessGroupNCCL::Impl::run(const std::string& op, const std::string& call,
                                                  const std::vector<Tensor>& tensors, bool collective,
                                                  bool blocking, const Launch& launch) {
  std::lock_guard<std::mutex> lock(mutex_);
  BRISK_CHECK(broken_.empty(), "ProcessGroupNCCL: {} after an earlier error: {}", op, broken_);
  if (comm_ == nullptr) create_communicator();
  int64_t seq = collective ? ++seq_ : ++p2p_seq_;
  if (collective && options.check_desync) check_desync(seq, call);

  cuda::DeviceGuard guard(device_);
  cuda::Event ready;
  ready.record(cuda::current_stream(device_));
  ready.wait(*stream_);
  launch(comm_, *stream_);
  for (const Tensor& t : tensors) cuda::record_stream(t, *stream_);
  auto work = std::make_shared<WorkNCCL>(fmt::format("{} #{} ({})", op, seq, call), collective ? seq : -1, device_,
                                         tensors, blocking);
  work->record_end(*stream_);
  pending_.push_back(work);
  return work;
}

void ProcessGroupNCCL::Impl::watch() {
  cuda::DeviceGuard guard(device_);
  int64_t published = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, kWatchInterval);
    if (stop_) break;
    try {
      pending_.erase(std::remove_if(pending_.begin(), pending_.end(),
                                    [](const std::shared_ptr<WorkNCCL>& w) { return w->is_completed(); }),
                     pending_.end());
    } catch (const std::exception& e) {
      // A sticky CUDA error (e.g. a faulting kernel): no later work on this device can finish.
      const WorkNCCL* oldest = pending_.empty() ? nullptr : pending_.front().get();
      fail(fmt::format("CUDA error while checking {}: {}", oldest ? oldest->label() : "the queued collectives",
                       e.what()),
           oldest ? oldest->seq() : -1);
    }
    ncclResult_t async = ncclSuccess;
    ncclCommGetAsyncError(comm_, &async);
    const WorkNCCL* oldest = pending_.empty() ? nullptr : pending_.front().get();
    if (async != ncclSuccess && async != ncclInProgress) {
      std::string what = oldest ? oldest->label() : fmt::format("after collective #{}", seq_);
      fail(fmt::format("{}: NCCL reported {} ({}); a peer may have died", what, ncclGetErrorString(async),
                       ncclGetLastError(comm_)),
           oldest ? oldest->seq() : -1);
    }
    if (oldest && WorkNCCL::Clock::now() - oldest->start() > options.timeout)
      fail(fmt::format("{} did not finish within {} ms", oldest->label(), options.timeout.count()), oldest->seq());
    if (seq_ > published) {
      int64_t seq = seq_;
      lock.unlock();
      try {
        store->set(progress_key(rank), std::to_string(seq));
        published = seq;
      } catch (const Error&) {
        // The store may be gone at shutdown; progress only serves error messages.
      }
      lock.lock();
    }
  }
}

void ProcessGroupNCCL::Impl::fail(const std::string& reason, int64_t seq) {
  std::vector<int> behind;
  for (int r = 0; r < size && seq > 0; ++r) {
    if (r == rank) continue;
    try {
      if (!store->check({progress_key(r)}) || std::stoll(store->get_string(progress_key(r))) < seq) behind.push_back(r);
    } catch (const std::exception&) {
      behind.push_back(r);
    }
  }
  std::string message = fmt::format("ProcessGroupNCCL: rank {}: {}", rank, reason);
  if (seq > 0) message += fmt::format("; ranks that had not queued collective #{}: {}", seq, behind);
  std::fprintf(stderr, "%s; aborting the communicator and exiting\n", message.c_str());
  std::fflush(stderr);
  ncclCommAbort(comm_);
  std::_Exit(1);
}

}  // namespace brisk::dist
