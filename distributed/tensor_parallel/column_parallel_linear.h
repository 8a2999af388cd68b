#pragma once
// tp::ColumnParallelLinear: nn::Linear with its output features split over a tensor-parallel
// group (Megatron-LM's ColumnParallelLinear): rank r holds rows out_range of the weight [out, in]
// and of the bias, and computes those output features from the whole input.
//
//   tp::ColumnParallelLinear fc1(tp::ColumnParallelLinearOptions(512, 2048), mesh.group("tp"));
//   tp::RowParallelLinear fc2(tp::RowParallelLinearOptions(2048, 512), mesh.group("tp"));
//   Tensor y = fc2(relu(fc1(x)));   // x, y: [*, 512] whole on every rank; between: [*, 2048/N]
//
// forward: copy_to_region (mappings.h: its backward sums the ranks' input gradients), then the
// local linear: [*, in] -> [*, out_r]; with gather_output the parts are all-gathered into
// [*, out] on every rank. With sequence_parallel the input holds this rank's rows of dim 0 (as
// RowParallelLinear's sequence_parallel output does) and is all-gathered along dim 0 first,
// its gradient reduce-scattered back.
//
// out_features need not be divisible by the group size (uneven_split.h: 7 over 3 ranks is
// 3, 3, 1). Initialized from nn::Linear's distribution, each rank drawing its own part;
// load_full_state_dict (full_state_dict.h) loads an unsplit nn::Linear's state exactly.
#include <cstdint>
#include <iosfwd>

#include "distributed/tensor_parallel/parallel_layer.h"
#include "nn/module.h"
#include "nn/module_holder.h"
#include "tensor/arg.h"

namespace brisk::dist::tp {

struct ColumnParallelLinearOptions {
  ColumnParallelLinearOptions(int64_t in_features, int64_t out_features)
      : in_features_(in_features), out_features_(out_features) {}
  BRISK_ARG(int64_t, in_features);
  BRISK_ARG(int64_t, out_features);
  BRISK_ARG(bool, bias) = true;
  // All-gather the output features: [*, out] on every rank instead of this rank's [*, out_r].
  BRISK_ARG(bool, gather_output) = false;
  // The input is this rank's rows of dim 0 (sequence parallelism); all-gathered first.
  BRISK_ARG(bool, sequence_parallel) = false;
};

class ColumnParallelLinearImpl : public nn::Module, public TensorParallelLayer {
 public:
  // group nullptr: the default group.
  ColumnParallelLinearImpl(const ColumnParallelLinearOptions& options, GroupPtr group);

  Tensor forward(const Tensor& input) override;
  // nn::Linear's distribution: U(-1/sqrt(in_features), 1/sqrt(in_features)).
  void reset_parameters();
  // This rank's output features.
  RowRange out_range() const { return split(options.out_features()); }

  std::vector<ParallelParameter> parallel_parameters() const override;
  std::string options_text() const override;
  void pretty_print(std::ostream& stream) const override;

  ColumnParallelLinearOptions options;
  Tensor weight;  // [out_r, in_features]
  Tensor bias;    // [out_r], undefined without bias
};

BRISK_MODULE(ColumnParallelLinear);

}  // namespace brisk::dist::tp
