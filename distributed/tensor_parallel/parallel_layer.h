#pragma once
// tp::TensorParallelLayer: what every tensor-parallel layer knows about how its parameters are
// split over its group, so that it can report its shapes and tp::full_state_dict can gather and
// split them (full_state_dict.h).
//
//   tp::ColumnParallelLinear fc(tp::ColumnParallelLinearOptions(16, 7), mesh.group("tp"));
//   fc->global_shape("weight");   // [7, 16]: the unsplit nn::Linear's
//   fc->local_shape("weight");    // [3, 16] on ranks 0 and 1 of 3, [1, 16] on rank 2
//   fc->describe();               // "ColumnParallelLinear(in_features=16, out_features=7, ...)
//                                 //  on tensor-parallel rank 2 of 3: weight [1, 16] of [7, 16]
//                                 //  (dim 0 [6, 7)), bias [1] of [7] (dim 0 [6, 7))"
#include <cstdint>
#include <string>
#include <vector>

#include "distributed/distributed.h"
#include "distributed/tensor_parallel/uneven_split.h"

namespace brisk::dist::tp {

// One parameter of a tensor-parallel layer and how it is split.
struct ParallelParameter {
  std::string name;    // as the layer registered it ("weight")
  Shape global_shape;  // the unsplit layer's (nn::Linear's, nn::Embedding's)
  int64_t split_dim;   // split over the group along this dim (uneven_split.h); -1: every rank holds all
};

class TensorParallelLayer {
 public:
  // group nullptr: the default group.
  explicit TensorParallelLayer(GroupPtr group) : group_(group ? std::move(group) : default_group()) {}
  virtual ~TensorParallelLayer() = default;

  const GroupPtr& group() const { return group_; }
  int tp_rank() const { return group_->rank(); }
  int tp_size() const { return group_->size(); }

  virtual std::vector<ParallelParameter> parallel_parameters() const = 0;
  // The layer's options as its pretty_print shows them: "ColumnParallelLinear(in_features=16, ...)".
  virtual std::string options_text() const = 0;

  // Of the parameter `name`; each throws naming the layer's parameters for another name.
  Shape global_shape(const std::string& name = "weight") const;
  Shape local_shape(const std::string& name = "weight") const;
  // This rank's part of the split dim ({0, size} for a parameter every rank holds whole).
  RowRange local_range(const std::string& name = "weight") const;
  // options_text(), this rank, and every parameter's local and global shapes.
  std::string describe() const;

 protected:
  // Rank's part of a dimension of `size` split over the group.
  RowRange split(int64_t size) const { return split_range(size, tp_size(), tp_rank()); }

 private:
  ParallelParameter parameter(const std::string& name) const;

  GroupPtr group_;
};

}  // namespace brisk::dist::tp
