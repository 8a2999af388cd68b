#pragma once
// Communication hooks: how DistributedDataParallel reduces one bucket of gradients, as
// torch.distributed's DDP comm hooks. Without one, DDP averages each bucket with an all-reduce;
// a hook may compress, quantize, or skip ranks instead.
//
//   ddp->register_comm_hook(std::make_shared<dist::BF16CompressHook>(group));
//
// A hook runs on the autograd thread as soon as a bucket is ready, starts the reduction,
// and returns at once with a Work; DistributedDataParallel waits for every bucket's Work at
// the end of backward and copies its result() into the parameters' .grad.
#include <memory>
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

class CommHook {
 public:
  virtual ~CommHook() = default;
  virtual std::string name() const = 0;
  // Starts reducing the bucket; the Work's result(), after wait(), is the averaged gradients as
  // a flat tensor of the bucket's numel and dtype (often the bucket buffer itself: Work::then).
  virtual std::shared_ptr<Work> run(GradBucket& bucket) = 0;
};

}  // namespace brisk::dist
