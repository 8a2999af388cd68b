#include "distributed/tensor_parallel/full_state_dict.h"

#include <map>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "autograd/grad_mode.h"
#include "distributed/tensor_parallel/parallel_layer.h"
#include "distributed/tensor_parallel/uneven_split.h"
#include "tensor/error.h"

namespace brisk::dist::tp {

namespace {

struct SplitParameter {
  const TensorParallelLayer* layer = nullptr;
  ParallelParameter parameter;
};

// The model's split parameters by state_dict key.
std::map<std::string, SplitParameter> split_parameters(nn::Module& model) {
  std::map<std::string, SplitParameter> out;
  for (const auto& [prefix, module] : model.named_modules()) {
    const auto* layer = dynamic_cast<const TensorParallelLayer*>(module.get());
    if (layer == nullptr) continue;
    for (const ParallelParameter& p : layer->parallel_parameters())
      if (p.split_dim >= 0) out[prefix.empty() ? p.name : prefix + "." + p.name] = {layer, p};
  }
  return out;
}

}  // namespace

nn::StateDict full_state_dict(nn::Module& model) {
  NoGradGuard no_grad;
  const auto split = split_parameters(model);
  nn::StateDict full;
  for (const auto& [key, tensor] : model.state_dict()) {
    auto it = split.find(key);
    if (it == split.end()) {
      full.insert(key, tensor);
      continue;
    }
    const ParallelParameter& p = it->second.parameter;
    full.insert(key, all_gather_along(tensor, p.split_dim, *it->second.layer->group(), p.global_shape[p.split_dim]));
  }
  return full;
}

void load_full_state_dict(nn::Module& model, const nn::StateDict& state) {
  const auto split = split_parameters(model);
  nn::StateDict local;
  for (const auto& [key, tensor] : state) {
    auto it = split.find(key);
    if (it == split.end()) {
      local.insert(key, tensor);
      continue;
    }
    const ParallelParameter& p = it->second.parameter;
    BRISK_CHECK(tensor.sizes() == p.global_shape, "tp::load_full_state_dict: '{}' is {}, the unsplit layer's is [{}]",
                key, tensor.describe(), fmt::join(p.global_shape, ", "));
    local.insert(key, local_part(tensor, p.split_dim, *it->second.layer->group()));
  }
  model.load_state_dict(local, /*strict=*/true);
}

}  // namespace brisk::dist::tp
