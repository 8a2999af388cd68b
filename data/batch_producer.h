#pragma once
// Produces the batches of one epoch in order, loading them ahead on worker threads.
//
// With num_workers = 0 each batch is loaded on the consumer's thread when asked for. With
// more, the workers claim batch indices in order and load them concurrently (each running
// its ops single-threaded: set_num_threads(1) on its thread); at most
// `max_ahead` batches are claimed beyond the one the consumer waits for, which bounds the
// memory held by finished batches. Batches are handed out in index order whatever order
// they finish in.
//
// A batch that fails to load is rethrown to the consumer when its turn comes, as a
// brisk::Error naming the batch index (and the worker) followed by the original message;
// the batches after it can still be fetched.
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "data/example.h"

namespace brisk::data {

class BatchProducer {
 public:
  using LoadBatch = std::function<Batch(int64_t batch_index)>;

  BatchProducer(int64_t num_batches, LoadBatch load, int num_workers, int64_t max_ahead);
  // Stops the workers (each finishes the batch it is loading) and joins them.
  ~BatchProducer();
  BatchProducer(const BatchProducer&) = delete;
  BatchProducer& operator=(const BatchProducer&) = delete;

  // The next batch in order, or std::nullopt after the last.
  std::optional<Batch> next();
  // Index of the batch next() returns next.
  int64_t next_index() const { return next_; }

 private:
  struct Result {
    Batch batch;
    std::exception_ptr error;
  };

  void work(int worker);
  Result load(int64_t index, int worker) const;

  const int64_t num_batches_;
  const LoadBatch load_;
  const int num_workers_;
  const int64_t max_ahead_;
  int64_t next_ = 0;  // the batch the consumer takes next

  std::mutex mutex_;
  std::condition_variable claimable_;  // workers wait for room to claim a batch
  std::condition_variable finished_;   // the consumer waits for its batch
  int64_t next_claim_ = 0;
  bool stop_ = false;
  std::map<int64_t, Result> done_;
  std::vector<std::thread> workers_;
};

}  // namespace brisk::data
