#pragma once
// dist::ShardedUnit: the parameters of one fully_shard call (PyTorch's FSDPParamGroup),
// sharded over a process group by one FlatShardLayout, so that one all_gather gathers them
// and one reduce_scatter reduces their gradients. fully_shard (fully_shard.h) decides when;
// this class does the moving.
//
// Outside the unit's forward and backward each parameter tensor holds this rank's shard of
// it, rows of dim 0 shaped layout().shard_shape(i, rank), a view of one flat shard buffer
// that is the all_gather's input. unshard() gathers the full parameters into memory of their
// own and points each parameter tensor at its full tensor (Tensor::set_data: the module and
// the autograd graph see it); reshard() points them back at the shards and frees that memory
// in place (Storage::resize(0)), so tensors saved for backward still refer to it and see the
// values again after the next unshard().
//
// Gradients: the full gradients that backward accumulates into the parameter tensors go out
// with start_reduce_grads() (zeros for a parameter without one, AVG over the ranks, in the
// reduce dtype); finish_grads() waits and sets each parameter's .grad to its shard, added to
// the shard gradient stash_grads() moved aside before backward (accumulation across steps).
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "distributed/fsdp/mixed_precision_policy.h"
#include "distributed/process_group.h"
#include "distributed/shard/flat_shard_layout.h"
#include "tensor/tensor.h"

namespace brisk::dist {

// One all_gather or reduce_scatter of a unit, for the overlap metric (fsdp_comm_overlap):
// issued, completed (Work::completed_at, or the end of the wait where the backend cannot tell),
// and how long the issuing thread was blocked waiting for it (time no compute ran).
struct CollectiveSpan {
  using Clock = std::chrono::steady_clock;
  Clock::time_point issued;
  Clock::time_point completed;
  Clock::duration waited{};
};

class ShardedUnit {
 public:
  // `params` (leaves, one floating dtype, on the group's device, named by `param_names` in
  // messages) become their shards of the values they hold now; with `cpu_offload` the shards
  // and their gradients live in CPU memory and are copied to the group's device to be gathered.
  ShardedUnit(std::vector<std::string> param_names, std::vector<Tensor> params, std::shared_ptr<ProcessGroup> group,
              const MixedPrecisionPolicy& mp_policy, bool cpu_offload = false);
  ShardedUnit(const ShardedUnit&) = delete;
  ShardedUnit& operator=(const ShardedUnit&) = delete;

  // The module's path in the model ("layer1.0"), for messages; set when the root is known.
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  ProcessGroup& group() const { return *group_; }
  const FlatShardLayout& layout() const { return layout_; }
  // The parameter tensors, named as the module names them relative to the unit's module.
  const std::vector<Tensor>& params() const { return params_; }
  const std::vector<std::string>& param_names() const { return param_names_; }
  // This rank's shards (views of shard_buffer(), shaped layout().shard_shape(i, rank)).
  const std::vector<Tensor>& shards() const { return shards_; }
  // This rank's flat shard buffer (layout().shard_numel() elements).
  const Tensor& shard_buffer() const { return shard_buffer_; }
  DType compute_dtype() const { return compute_dtype_; }
  // Where the shards and their gradients live: the CPU under cpu_offload, else the group's device.
  Device shard_device() const { return shard_device_; }

  bool is_unsharded() const { return unsharded_; }
  // Bytes the gathered parameters hold now: 0 when resharded.
  size_t unsharded_bytes() const;

  // Issues the all_gather (no-op when gathered or issued already): a prefetch.
  void start_unshard();
  // Completes the all_gather (issuing it first if needed) and points the parameters at the
  // full tensors. No-op when unsharded.
  void unshard();
  // Points the parameters at their shards and frees the full tensors' memory.
  void reshard();
  // Completes and drops an all_gather that start_unshard() issued and unshard() never took (a
  // prefetch of a unit that did not run): its values would be stale after the next step.
  void discard_prefetch();

  // Moves the parameters' shard gradients aside, leaving .grad empty for backward.
  void stash_grads();
  // Issues the reduce_scatter of the parameters' full gradients (plus those accumulated
  // without synchronization) and drops them.
  void start_reduce_grads();
  // Instead of reducing: adds the full gradients to ones kept (in the reduce dtype) until the
  // next start_reduce_grads(): gradient accumulation without communication.
  void accumulate_unsharded_grads();
  // Waits for the reduce_scatter in flight, if any, and frees its input (the full gradients);
  // its result waits for finish_grads().
  void wait_reduce();
  // Waits for the reduce_scatter and sets each .grad to its gradient shard plus the stashed
  // one; without a reduce_scatter, puts the stashed gradients back.
  void finish_grads();

  // The collectives completed since clear_collective_spans() (fully_shard clears them as each
  // iteration's root forward begins).
  const std::vector<CollectiveSpan>& collective_spans() const { return collective_spans_; }
  void clear_collective_spans() { collective_spans_.clear(); }

 private:
  // Runs `collective` (issuing or waiting for this unit's `op`); a failure, e.g. the group's
  // desync check finding ranks that ran this unit a different number of times, becomes a
  // brisk::Error that names the unit and this rank before the group's own explanation.
  template <typename F>
  decltype(auto) collective(const char* op, F&& collective);
  // Waits for `work` (issued at `issued`) through collective(op, ...) and records its span.
  void wait_recorded(const char* op, Work& work, CollectiveSpan::Clock::time_point issued);

  std::string name_;
  std::vector<std::string> param_names_;
  std::vector<Tensor> params_;
  std::shared_ptr<ProcessGroup> group_;
  FlatShardLayout layout_;
  DType shard_dtype_;
  DType compute_dtype_;
  DType reduce_dtype_;
  Device shard_device_;

  Tensor shard_buffer_;
  std::vector<Tensor> shards_;
  // The full parameters, views of one buffer whose storage is freed while resharded.
  Tensor full_buffer_;
  std::vector<Tensor> full_;
  bool unsharded_ = false;

  // In flight: the all_gather (its input and output kept alive) and the reduce_scatter.
  std::shared_ptr<Work> gather_work_;
  CollectiveSpan::Clock::time_point gather_issued_;
  Tensor gather_input_;
  Tensor gathered_;
  std::shared_ptr<Work> reduce_work_;
  CollectiveSpan::Clock::time_point reduce_issued_;
  Tensor reduce_input_;
  Tensor grad_shard_buffer_;
  std::vector<Tensor> stashed_grads_;
  std::vector<Tensor> accumulated_grads_;  // full, from backwards without synchronization
  std::vector<CollectiveSpan> collective_spans_;
};

}  // namespace brisk::dist
