#pragma once
// dist::ParameterShards: how ZeRO-2 splits a module's trained parameters over the ranks of a
// group, the one description its gradient reduce-scatter, its optimizer and a checkpoint
// writer share.
//
// Every parameter is split along dim 0 as torch.chunk splits it (distributed/shard's
// FlatShardLayout): rank r owns rows layout.rows(slot, r) of it. This rank's shard of
// parameter i, shard(i), is a leaf tensor that shares the parameter's memory (those rows, any
// strides, channels_last included): an optimizer stepping the shards updates the full
// parameters' own rows in place, and loading a state_dict into the module updates the shards.
// A rank that owns no row of a parameter holds an empty shard ([0, ...]); a 0-d parameter is
// one row, held by rank 0 ([1] there).
//
// Parameters are grouped into buckets (reverse parameter order, dtype- and size-capped as
// DDP's): one FlatShardLayout per bucket, so that one reduce_scatter moves a bucket's
// gradients and one all_gather its updated parameters.
#include <memory>
#include <string>
#include <vector>

#include "distributed/process_group.h"
#include "distributed/shard/flat_shard_layout.h"
#include "distributed/zero2/zero2_options.h"
#include "tensor/tensor.h"

namespace brisk::dist {

class ParameterShards {
 public:
  struct Bucket {
    std::vector<size_t> params;  // indices into params(), in layout order
    FlatShardLayout layout;      // over those parameters' shapes
  };
  struct Place {
    size_t bucket = 0;
    size_t slot = 0;  // the parameter's index in its bucket's layout
  };

  // `names` name the parameters in errors; every parameter must be on group->device().
  ParameterShards(std::vector<Tensor> params, std::vector<std::string> names, std::shared_ptr<ProcessGroup> group,
                  const Zero2Options& options);

  const std::vector<Tensor>& params() const { return params_; }
  const std::string& name(size_t i) const { return names_.at(i); }
  const std::vector<Tensor>& shards() const { return shards_; }
  const Tensor& shard(size_t i) const { return shards_.at(i); }
  const std::vector<Bucket>& buckets() const { return buckets_; }
  const Place& place(size_t i) const { return places_.at(i); }
  // This rank's rows of parameter i.
  RowRange rows(size_t i) const;
  const std::shared_ptr<ProcessGroup>& group() const { return group_; }

  // Collective: every rank's shards into every rank's full parameters, bucket by bucket
  // (one all_gather each, at most two in flight).
  void all_gather_parameters() const;

 private:
  std::vector<Tensor> params_;
  std::vector<std::string> names_;
  std::shared_ptr<ProcessGroup> group_;
  std::vector<Bucket> buckets_;
  std::vector<Place> places_;
  std::vector<Tensor> shards_;
};

}  // namespace brisk::dist
