#pragma once
// dist::Work: the handle of an asynchronous collective, as c10d::Work.
//
//   auto work = group->all_reduce(grad);   // returns at once
//   ...                                     // overlap other work
//   work->wait();                           // the result is in `grad`
//
// wait() throws a brisk::Error when the collective failed or timed out; the message names
// the operation, its sequence number in the group, and the ranks that did not take part.
// On CUDA (NCCL), wait() makes the caller's current stream wait for the collective rather
// than blocking the host, as PyTorch does.
//
// then() chains a step that runs after the collective, on the thread that waits, and gives
// the Work a result (DDP's comm hooks: the reduced bucket, e.g. decompressed):
//
//   auto reduced = group->all_reduce(compressed)->then([=] { return decompress(compressed); });
//   reduced->wait();
//   Tensor bucket = reduced->result();
#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <optional>

#include "tensor/tensor.h"

namespace brisk::dist {

// Made with std::make_shared (then() shares this Work with the Work it returns).
class Work : public std::enable_shared_from_this<Work> {
 public:
  virtual ~Work() = default;
  // True once the collective finished, successfully or not; never blocks.
  virtual bool is_completed() = 0;
  // True when it completed without error.
  virtual bool is_success() = 0;
  // Blocks until completion (at most the group's timeout) and rethrows its error, if any.
  virtual void wait() = 0;
  // When it completed (steady clock), once is_completed(); std::nullopt where the backend
  // cannot tell without synchronizing with a device (NCCL: the GPU completes it).
  virtual std::optional<std::chrono::steady_clock::time_point> completed_at() { return std::nullopt; }
  // What the Work produced, once wait() returned: then()'s value; undefined for a collective,
  // whose results are in the tensors it was given.
  virtual Tensor result() { return Tensor(); }

  // A Work that completes with this one; its first successful wait() then runs `next` (once),
  // and its result() is what `next` returned.
  std::shared_ptr<Work> then(std::function<Tensor()> next);
};

}  // namespace brisk::dist
