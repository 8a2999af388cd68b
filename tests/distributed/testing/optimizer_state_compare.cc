#include "tests/distributed/testing/optimizer_state_compare.h"

#include <cmath>
#include <vector>

#include <fmt/format.h>

namespace brisk::dist::testing {

std::string compare_optimizer_states(const optim::OptimizerState& got, const optim::OptimizerState& want,
                                     double tolerance) {
  if (got.param_groups != want.param_groups) {
    return fmt::format("param_groups {} != {}; ", got.param_groups.dump(), want.param_groups.dump());
  }
  std::string failure;
  for (const auto& [key, value] : want.tensors) {
    auto it = got.tensors.find(key);
    if (it == got.tensors.end()) {
      failure += "missing " + key + "; ";
      continue;
    }
    std::vector<double> a = it->second.to_vector<double>(), b = value.to_vector<double>();
    bool close = a.size() == b.size() && it->second.sizes() == value.sizes();
    for (size_t i = 0; close && i < a.size(); ++i) close = std::abs(a[i] - b[i]) < tolerance;
    if (!close) failure += "differs " + key + "; ";
  }
  if (got.tensors.size() != want.tensors.size()) {
    failure += fmt::format("{} tensors, want {}; ", got.tensors.size(), want.tensors.size());
  }
  return failure;
}

}  // namespace brisk::dist::testing
