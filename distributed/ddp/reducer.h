#pragma once
// dist::Reducer: the gradient side of DistributedDataParallel (c10d::Reducer).
//
// Every parameter gets a post-accumulate-grad hook. When DistributedDataParallel has armed
// the reducer for a backward (prepare_for_backward), each hook copies its parameter's .grad
// into that parameter's slot of a flat bucket buffer; when the last gradient of a bucket
// arrives, the bucket goes to the communication hook (by default an averaging all-reduce),
// which runs asynchronously while backward goes on. Buckets are handed over strictly in
// bucket order, so every rank issues the same collectives in the same order. At the end of
// backward (an autograd final callback) the reducer waits for every bucket and copies the
// averaged gradients back into .grad, so backward() returns with reduced gradients (with
// gradient_as_bucket_view, .grad becomes the bucket's view instead of a copy).
//
// Unarmed backwards (DistributedDataParallel::no_sync) only accumulate locally; the reducer
// remembers which parameters received a gradient, so that with find_unused_parameters a
// parameter used in any accumulated micro-batch is reduced at the synchronizing step.
//
// A gradient that reaches a parameter when no DDP forward has run since the last
// synchronizing backward, neither a synchronizing one nor one under no_sync, is an error
// naming the parameter and the rank: the forward went around DDP (the wrapped module was
// called directly), and the replicas would silently drift apart.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "distributed/ddp/comm_hook.h"
#include "distributed/ddp/options.h"
#include "distributed/process_group.h"
#include "tensor/tensor.h"

namespace brisk::dist {

// When the last backward's reductions happened (steady clock), for benchmarks and for
// comm_overlap() (distributed/ddp/comm_overlap.h).
struct ReducerTimeline {
  using Clock = std::chrono::steady_clock;
  Clock::time_point first_gradient;                // the first hook of the backward
  std::vector<Clock::time_point> bucket_launched;  // per bucket, when handed to the comm hook
  // Per bucket, when its communication completed (Work::completed_at), or, where the
  // backend cannot tell, when the end of backward finished waiting for it.
  std::vector<Clock::time_point> bucket_reduced;
  Clock::time_point backward_end;  // the final callback starts: autograd is done
  Clock::time_point reduced;       // every bucket waited for and copied back
};

class Reducer {
 public:
  // `names` name the parameters in errors. Buckets start in reverse parameter order.
  Reducer(std::vector<Tensor> parameters, std::vector<std::string> names, std::shared_ptr<ProcessGroup> group,
          const DistributedDataParallelOptions& options);
  ~Reducer();
  Reducer(const Reducer&) = delete;
  Reducer& operator=(const Reducer&) = delete;

  // Replaces the built-in reduction (an all-reduce with ReduceOp::AVG, in place); only before
  // the first backward.
  void register_comm_hook(std::shared_ptr<CommHook> hook);
  // Under a Join the built-in reduction sums and divides by `divisor` instead of averaging over
  // the group (0: average); set per iteration. A registered hook ignores it.
  void set_divisor(int divisor) { divisor_ = divisor; }

  // Arms the hooks for the next backward. With find_unused_parameters, `outputs` are the
  // forward's outputs, from which the autograd graph is walked to find unused parameters.
  void prepare_for_backward(const std::vector<Tensor>& outputs);
  // After a forward that records a graph but does not synchronize (no_sync): the backwards
  // that follow accumulate into .grad locally, until the next synchronizing backward.
  void prepare_for_local_backward() { local_backward_allowed_ = true; }

  // On a rank that has joined (join.h), in place of a synchronizing backward: hands every
  // bucket, filled with zeros, to the comm hook in bucket order (and with
  // find_unused_parameters all-reduces an empty used-parameter mask), as the ranks still
  // training do in their backward; then writes the reduced gradients into .grad as they do,
  // so an optimizer stepping here (ZeroRedundancyOptimizer's join hook) sees their gradients.
  void shadow_backward();

  // Once, before the forward that follows the first synchronizing backward: rebuilds the
  // buckets in the order rank 0's gradients became ready (a broadcast, so every rank must
  // call it at the same point). Returns whether it rebuilt.
  bool rebuild_buckets();

  // The parameter indices of each bucket, in reduction order.
  std::vector<std::vector<size_t>> bucket_indices() const;
  // Parameter indices in the order their gradients were marked ready in the last
  // synchronizing backward.
  const std::vector<size_t>& ready_order() const { return ready_order_; }
  const ReducerTimeline& timeline() const { return timeline_; }
  const std::vector<Tensor>& parameters() const { return parameters_; }

 private:
  struct Bucket {
    std::vector<size_t> variables;
    std::vector<int64_t> offsets;
    Tensor buffer;
    std::vector<Tensor> views;
    size_t pending = 0;
    std::shared_ptr<Work> reduction;  // its all-reduce, or the comm hook's
  };
  struct Locator {
    size_t bucket = 0;
    size_t slot = 0;
  };

  void initialize_buckets(const std::vector<std::vector<size_t>>& assignment);
  std::vector<std::vector<size_t>> assign(const std::vector<size_t>& order) const;
  void autograd_hook(size_t index);
  // `contribute` false: the bucket slot gets zeros instead of the parameter's .grad. Starts
  // the reduction of every bucket, in order, whose gradients are all ready.
  void mark_ready(size_t index, bool contribute = true);
  void finalize_backward();
  // Waits for every bucket and writes the reduced gradients into .grad.
  void copy_back_reduced();
  // Notes when bucket `index`'s communication completed (after its wait()), in the timeline
  // and, while profiling, as a bucket event from its launch.
  void note_reduced(size_t index);
  void reset_iteration();

  std::vector<Tensor> parameters_;
  std::vector<std::string> names_;
  std::vector<size_t> hook_handles_;
  std::shared_ptr<ProcessGroup> group_;
  DistributedDataParallelOptions options_;
  std::shared_ptr<CommHook> comm_hook_;  // null: the built-in all-reduce
  int divisor_ = 0;

  std::vector<Bucket> buckets_;
  std::vector<Locator> locators_;
  size_t next_bucket_ = 0;

  // Per backward.
  bool expect_hooks_ = false;
  // A no_sync forward ran since the last synchronizing backward (prepare_for_local_backward).
  bool local_backward_allowed_ = false;
  bool first_hook_seen_ = false;
  std::vector<size_t> unused_;
  std::vector<bool> ready_;
  std::vector<size_t> current_order_;
  // Which parameters received a gradient since the last synchronizing backward (1 or 0),
  // written by the hooks on the host; with find_unused_parameters, its copy on the group's
  // device being max-reduced across ranks, and that all-reduce.
  std::vector<int32_t> local_used_;
  Tensor globally_used_;
  std::shared_ptr<Work> local_used_work_;

  bool has_rebuilt_ = false;
  bool has_synced_ = false;
  std::vector<size_t> ready_order_;
  ReducerTimeline timeline_;
};

}  // namespace brisk::dist
