#include "data/batch_producer.h"

#include <utility>

#include "profiler/record.h"
#include "tensor/error.h"
#include "tensor/parallel.h"

namespace brisk::data {

BatchProducer::BatchProducer(int64_t num_batches, LoadBatch load, int num_workers, int64_t max_ahead)
    : num_batches_(num_batches), load_(std::move(load)), num_workers_(num_workers), max_ahead_(max_ahead) {
  BRISK_CHECK(num_workers >= 0, "DataLoader: num_workers must be non-negative, got {}", num_workers);
  BRISK_CHECK(max_ahead >= 1, "DataLoader: workers must be allowed at least one batch ahead, got {}", max_ahead);
  workers_.reserve(static_cast<size_t>(num_workers));
  for (int w = 0; w < num_workers; ++w) workers_.emplace_back(&BatchProducer::work, this, w);
}

BatchProducer::~BatchProducer() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  claimable_.notify_all();
  for (std::thread& t : workers_) t.join();
}

BatchProducer::Result BatchProducer::load(int64_t index, int worker) const {
  Result result;
  std::string message;
  try {
    result.batch = load_(index);
    return result;
  } catch (const std::exception& e) {
    message = e.what();
  } catch (...) {
    message = "an exception that is not a std::exception";
  }
  std::string where = worker < 0 ? "" : fmt::format(" in worker {}", worker);
  result.error =
      std::make_exception_ptr(Error(fmt::format("DataLoader: loading batch {} failed{}: {}", index, where, message)));
  return result;
}

void BatchProducer::work(int worker) {
  // Ops in a worker run on its thread alone, as in PyTorch's DataLoader workers: the training
  // thread's kernels own the cores, and an OpenMP team started from a worker (a new thread
  // starts with OpenMP's default thread count) would spin against them.
  set_num_threads(1);
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    claimable_.wait(lock, [&] { return stop_ || next_claim_ >= num_batches_ || next_claim_ < next_ + max_ahead_; });
    if (stop_ || next_claim_ >= num_batches_) return;
    int64_t index = next_claim_++;
    lock.unlock();
    Result result = load(index, worker);
    lock.lock();
    done_.emplace(index, std::move(result));
    finished_.notify_all();
  }
}

std::optional<Batch> BatchProducer::next() {
  if (next_ >= num_batches_) return std::nullopt;
  profiler::RecordScope scope(profiler::Category::DataLoading, "DataLoader.next");
  Result result;
  if (num_workers_ == 0) {
    result = load(next_, -1);
  } else {
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [&] { return done_.count(next_) > 0; });
    auto it = done_.find(next_);
    result = std::move(it->second);
    done_.erase(it);
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++next_;
  }
  claimable_.notify_all();
  if (result.error) std::rethrow_exception(result.error);
  return std::move(result.batch);
}

}  // namespace brisk::data
