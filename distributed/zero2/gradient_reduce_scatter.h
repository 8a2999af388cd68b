#pragma once
// dist::GradientReduceScatter: the gradient side of Zero2DataParallel, DDP's Reducer with a
// reduce_scatter in place of the all-reduce.
//
// Every trained parameter gets a post-accumulate-grad hook. In a synchronizing backward
// (armed by prepare_for_backward) the hook copies the parameter's .grad into its bucket's
// gradient buffer (allocated when the bucket's first gradient arrives, laid out by the
// bucket's FlatShardLayout) and drops the .grad; when a bucket's last gradient arrives, the
// bucket is reduce-scattered (ReduceOp::AVG) asynchronously while backward goes on, buckets
// strictly in bucket order so that every rank issues the same collectives; a bucket's buffer
// is freed once its reduce-scatter has completed (seen when the next bucket's buffer is
// allocated, or at the end of backward). At most two launched buckets keep their buffers
// (DeepSpeed's double buffer): launching a third first waits for the oldest, so however far the
// collectives fall behind backward, the gradients held stay within three buckets. At the end of backward (an autograd final callback)
// it waits for every bucket, frees the buffers left and gives each shard
// (ParameterShards::shard) its averaged rows as .grad, added to the shard's .grad when it
// already has one. So no full-size gradient survives a synchronizing backward: each rank
// keeps 1/N of them.
//
// Unarmed backwards (no_sync) accumulate into the parameters' full .grad, which the next
// synchronizing backward adds its gradients to before reducing. A gradient that reaches a
// parameter when no forward of the wrapper ran since the last synchronizing backward is an
// error naming the parameter and the rank, as under DDP.
#include <memory>
#include <vector>

#include "distributed/ddp/reducer.h"
#include "distributed/process_group.h"
#include "distributed/zero2/parameter_shards.h"

namespace brisk::dist {

class GradientReduceScatter {
 public:
  // Keeps a reference to `shards`, which must outlive it.
  explicit GradientReduceScatter(const ParameterShards& shards);
  ~GradientReduceScatter();
  GradientReduceScatter(const GradientReduceScatter&) = delete;
  GradientReduceScatter& operator=(const GradientReduceScatter&) = delete;

  // Arms the hooks for the next backward (a synchronizing one).
  void prepare_for_backward();
  // After a no_sync forward: the backwards that follow accumulate into .grad locally.
  void prepare_for_local_backward() { local_backward_allowed_ = true; }

  // Elements of gradient bucket buffers held now: 0 outside a synchronizing backward; within
  // one, those of the buckets being filled or still being reduced.
  int64_t held_bucket_numel() const;
  // When the last synchronizing backward's reductions happened (as DDP's; comm_overlap()).
  const ReducerTimeline& timeline() const { return timeline_; }

 private:
  struct Bucket {
    Tensor gathered;  // the bucket's gradients, FlatShardLayout's gathered layout
    size_t gathered_bytes = 0;
    Tensor shard;  // this rank's averaged rows (reduce_scatter's output)
    size_t pending = 0;
    std::shared_ptr<Work> reduction;
  };

  void hook(size_t index);
  // Frees the gradient buffers of the buckets whose reduce-scatter has completed.
  void release_reduced_buckets();
  void launch_ready_buckets();
  // Waits for the oldest launched buckets until fewer than kBucketsInFlight hold buffers.
  void limit_buckets_in_flight();
  void finalize_backward();
  void reset_iteration();

  const ParameterShards& shards_;
  std::vector<size_t> hook_handles_;
  std::vector<Bucket> buckets_;
  size_t next_bucket_ = 0;
  std::vector<bool> ready_;
  bool expect_hooks_ = false;
  bool local_backward_allowed_ = false;
  bool first_hook_seen_ = false;
  ReducerTimeline timeline_;
};

}  // namespace brisk::dist
