#pragma once
// tp::RowParallelLinear: nn::Linear with its input features split over a tensor-parallel group
// (Megatron-LM's RowParallelLinear): rank r holds columns in_range of the weight [out, in] and
// multiplies them with its part of the input features, [*, in_r] -> a partial [*, out]; the
// partial outputs are summed over the group (reduce_from_region: an all-reduce) and the bias,
// which every rank holds whole, is added once to the sum.
//
//   tp::RowParallelLinear fc2(tp::RowParallelLinearOptions(2048, 512), mesh.group("tp"));
//   Tensor y = fc2(h);   // h: [*, 2048/N] from a ColumnParallelLinear; y: [*, 512] on every rank
//
// input_is_parallel (the default) takes the input already split, as a ColumnParallelLinear
// without gather_output returns it; false takes the whole [*, in] and keeps this rank's part
// (scatter_to_region). With sequence_parallel the partial outputs are reduce-scattered along
// dim 0 instead: each rank gets its rows of the sum, [rows_r, *, out]; the bias is then added
// to rows that differ by rank, so its gradient is summed over the group (copy_to_region).
//
// in_features need not be divisible by the group size (uneven_split.h). load_full_state_dict
// (full_state_dict.h) loads an unsplit nn::Linear's state exactly.
#include <cstdint>
#include <iosfwd>

#include "distributed/tensor_parallel/parallel_layer.h"
#include "nn/module.h"
#include "nn/module_holder.h"
#include "tensor/arg.h"

namespace brisk::dist::tp {

struct RowParallelLinearOptions {
  RowParallelLinearOptions(int64_t in_features, int64_t out_features)
      : in_features_(in_features), out_features_(out_features) {}
  BRISK_ARG(int64_t, in_features);
  BRISK_ARG(int64_t, out_features);
  BRISK_ARG(bool, bias) = true;
  // The input is this rank's [*, in_r]; false: the whole [*, in], split here.
  BRISK_ARG(bool, input_is_parallel) = true;
  // Reduce-scatter the output along dim 0 instead of all-reducing it (needs input_is_parallel).
  BRISK_ARG(bool, sequence_parallel) = false;
};

class RowParallelLinearImpl : public nn::Module, public TensorParallelLayer {
 public:
  // group nullptr: the default group.
  RowParallelLinearImpl(const RowParallelLinearOptions& options, GroupPtr group);

  Tensor forward(const Tensor& input) override;
  // nn::Linear's distribution: U(-1/sqrt(in_features), 1/sqrt(in_features)) (in_features whole).
  void reset_parameters();
  // This rank's input features.
  RowRange in_range() const { return split(options.in_features()); }

  std::vector<ParallelParameter> parallel_parameters() const override;
  std::string options_text() const override;
  void pretty_print(std::ostream& stream) const override;

  RowParallelLinearOptions options;
  Tensor weight;  // [out_features, in_r]
  Tensor bias;    // [out_features] (whole on every rank), undefined without bias
};

BRISK_MODULE(RowParallelLinear);

}  // namespace brisk::dist::tp
