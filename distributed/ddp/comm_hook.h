#pragma once
// Communication hooks: how DistributedDataParallel reduces one bucket of gradients, as
// torch.distributed's DDP comm hooks. The default averages with an all-reduce; a hook may
// compress, quantize, or skip ranks instead.
//
//   ddp->register_comm_hook(std::make_shared<dist::BF16CompressHook>(group));
//
// A hook runs on the autograd thread as soon as a bucket is ready, starts the reduction,
// and returns at once with a CommFuture; DistributedDataParallel waits for every bucket's
// future at the end of backward and copies the result into the parameters' .grad.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "distributed/process_group.h"
#include "distributed/work.h"
#include "tensor/tensor.h"

namespace brisk::dist {

// One bucket handed to a hook: the gradients of its parameters, flattened into one
// contiguous buffer (one dtype, one device), each already holding this rank's gradient.
class GradBucket {
 public:
  GradBucket(size_t index, bool is_last, Tensor buffer, std::vector<Tensor> parameters, std::vector<Tensor> gradients)
      : index_(index),
        is_last_(is_last),
        buffer_(std::move(buffer)),
        parameters_(std::move(parameters)),
        gradients_(std::move(gradients)) {}

  // Buckets are numbered in the order they are reduced, 0 first.
  size_t index() const { return index_; }
  bool is_last() const { return is_last_; }
  // The flat buffer [numel]; hooks may reduce in place.
  const Tensor& buffer() const { return buffer_; }
  const std::vector<Tensor>& parameters() const { return parameters_; }
  // Views into buffer() shaped as the parameters.
  const std::vector<Tensor>& gradients() const { return gradients_; }

 private:
  size_t index_;
  bool is_last_;
  Tensor buffer_;
  std::vector<Tensor> parameters_;
  std::vector<Tensor> gradients_;
};

// The pending result of a hook: wait() returns the averaged gradients as a flat tensor of the
// bucket's numel and dtype (often the bucket buffer itself).
class CommFuture {
 public:
  virtual ~CommFuture() = default;
  // Never blocks.
  virtual bool is_completed() = 0;
  // Blocks until the result is there; rethrows the communication's error.
  virtual Tensor wait() = 0;
  // When the communication completed, where known (Work::completed_at).
  virtual std::optional<std::chrono::steady_clock::time_point> completed_at() { return std::nullopt; }
};

class CommHook {
 public:
  virtual ~CommHook() = default;
  virtual std::string name() const = 0;
  virtual std::shared_ptr<CommFuture> run(GradBucket& bucket) = 0;
};

// A CommFuture over a collective's Work: wait() waits for the work and then returns
// `then()` (which may post-process, e.g. decompress).
class WorkFuture final : public CommFuture {
 public:
  WorkFuture(std::shared_ptr<Work> work, std::function<Tensor()> then)
      : work_(std::move(work)), then_(std::move(then)) {}
  bool is_completed() override { return work_->is_completed(); }
  Tensor wait() override;
  std::optional<std::chrono::steady_clock::time_point> completed_at() override { return work_->completed_at(); }

 private:
  std::shared_ptr<Work> work_;
  std::function<Tensor()> then_;
  Tensor result_;
};

// The default: all_reduce of the bucket with ReduceOp::AVG, in place. Under a Join (join.h)
// DistributedDataParallel sets a divisor per iteration instead: the bucket is summed and
// divided by it, so that joined ranks (which contribute zeros) count towards the average or
// not, as JoinOptions::divide_by_initial_world_size says.
class AllReduceHook final : public CommHook {
 public:
  explicit AllReduceHook(std::shared_ptr<ProcessGroup> group) : group_(std::move(group)) {}
  std::string name() const override { return "allreduce"; }
  std::shared_ptr<CommFuture> run(GradBucket& bucket) override;
  // 0: ReduceOp::AVG over the group; else sum, then divide by `divisor`.
  void set_divisor(int divisor) { divisor_ = divisor; }

 private:
  std::shared_ptr<ProcessGroup> group_;
  int divisor_ = 0;
};

}  // namespace brisk::dist
