#include "distributed/tensor_parallel/row_parallel_linear.h"

#include <cmath>
#include <ostream>

#include <fmt/format.h>

#include "autograd/ops.h"
#include "distributed/tensor_parallel/mappings.h"
#include "nn/functional.h"
#include "nn/init.h"

namespace brisk::dist::tp {

RowParallelLinearImpl::RowParallelLinearImpl(const RowParallelLinearOptions& options_, GroupPtr group)
    : TensorParallelLayer(std::move(group)), options(options_) {
  BRISK_CHECK(options.in_features() >= 0 && options.out_features() >= 0,
              "RowParallelLinear: in_features {} and out_features {} must be non-negative", options.in_features(),
              options.out_features());
  BRISK_CHECK(!options.sequence_parallel() || options.input_is_parallel(),
              "RowParallelLinear: sequence_parallel needs input_is_parallel (the input split by features, as a "
              "ColumnParallelLinear returns it)");
  weight = register_parameter("weight", empty({options.out_features(), in_range().rows}));
  bias = register_parameter("bias", options.bias() ? empty({options.out_features()}) : Tensor());
  reset_parameters();
}

void RowParallelLinearImpl::reset_parameters() {
  const int64_t fan_in = options.in_features();
  const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
  nn::init::uniform_(weight, -bound, bound);
  if (bias.defined()) nn::init::uniform_(bias, -bound, bound);
}

Tensor RowParallelLinearImpl::forward(const Tensor& input) {
  const int64_t expected = options.input_is_parallel() ? in_range().rows : options.in_features();
  BRISK_CHECK(input.dim() >= 1 && input.size(-1) == expected,
              "{}: input {} does not have the {} features of tensor-parallel rank {} of {}{}", options_text(),
              input.describe(), expected, tp_rank(), tp_size(),
              options.input_is_parallel() ? " (input_is_parallel: this rank's part of in_features)" : "");
  Tensor x = options.input_is_parallel() ? input : scatter_to_region(input, group(), -1);
  Tensor partial = nn::functional::linear(x, weight);
  if (!options.sequence_parallel()) {
    Tensor y = reduce_from_region(partial, group());
    return bias.defined() ? y + bias : y;
  }
  Tensor rows = reduce_scatter_to_sequence_region(partial, group());
  return bias.defined() ? rows + copy_to_region(bias, group()) : rows;
}

std::vector<ParallelParameter> RowParallelLinearImpl::parallel_parameters() const {
  std::vector<ParallelParameter> params{{"weight", {options.out_features(), options.in_features()}, 1}};
  if (options.bias()) params.push_back({"bias", {options.out_features()}, -1});
  return params;
}

std::string RowParallelLinearImpl::options_text() const {
  return fmt::format("RowParallelLinear(in_features={}, out_features={}, bias={}, input_is_parallel={}, "
                     "sequence_parallel={})",
                     options.in_features(), options.out_features(), options.bias(), options.input_is_parallel(),
                     options.sequence_parallel());
}

void RowParallelLinearImpl::pretty_print(std::ostream& stream) const { stream << describe(); }

}  // namespace brisk::dist::tp
