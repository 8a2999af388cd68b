#include "distributed/tensor_parallel/column_parallel_linear.h"

#include <cmath>
#include <ostream>

#include <fmt/format.h>

#include "autograd/ops.h"
#include "distributed/tensor_parallel/mappings.h"
#include "nn/functional.h"
#include "nn/init.h"

namespace brisk::dist::tp {

ColumnParallelLinearImpl::ColumnParallelLinearImpl(const ColumnParallelLinearOptions& options_, GroupPtr group)
    : TensorParallelLayer(std::move(group)), options(options_) {
  BRISK_CHECK(options.in_features() >= 0 && options.out_features() >= 0,
              "ColumnParallelLinear: in_features {} and out_features {} must be non-negative", options.in_features(),
              options.out_features());
  const int64_t out_local = out_range().rows;
  weight = register_parameter("weight", empty({out_local, options.in_features()}));
  bias = register_parameter("bias", options.bias() ? empty({out_local}) : Tensor());
  reset_parameters();
}

void ColumnParallelLinearImpl::reset_parameters() {
  const int64_t fan_in = options.in_features();
  const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
  nn::init::uniform_(weight, -bound, bound);
  if (bias.defined()) nn::init::uniform_(bias, -bound, bound);
}

Tensor ColumnParallelLinearImpl::forward(const Tensor& input) {
  BRISK_CHECK(input.dim() >= 1 && input.size(-1) == options.in_features(), "{}: input {} does not have {} features",
              options_text(), input.describe(), options.in_features());
  Tensor x = options.sequence_parallel() ? gather_from_sequence_region(input, group()) : copy_to_region(input, group());
  Tensor y = nn::functional::linear(x, weight, bias);
  return options.gather_output() ? gather_from_region(y, group(), -1, options.out_features()) : y;
}

std::vector<ParallelParameter> ColumnParallelLinearImpl::parallel_parameters() const {
  std::vector<ParallelParameter> params{{"weight", {options.out_features(), options.in_features()}, 0}};
  if (options.bias()) params.push_back({"bias", {options.out_features()}, 0});
  return params;
}

std::string ColumnParallelLinearImpl::options_text() const {
  return fmt::format("ColumnParallelLinear(in_features={}, out_features={}, bias={}, gather_output={}, "
                     "sequence_parallel={})",
                     options.in_features(), options.out_features(), options.bias(), options.gather_output(),
                     options.sequence_parallel());
}

void ColumnParallelLinearImpl::pretty_print(std::ostream& stream) const { stream << describe(); }

}  // namespace brisk::dist::tp
