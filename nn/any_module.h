#pragma once
// Turning "something module-like" into a registered module plus its type-erased forward,
// for the containers (Sequential, ModuleList) that hold modules of different types.
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

#include "nn/module_holder.h"

namespace brisk::nn::detail {

// A call of the module's Tensor -> Tensor forward; an error raised inside names the module.
template <typename Ptr>
std::function<Tensor(const Tensor&)> unary_forward(const Ptr& module) {
  return [m = module.get()](const Tensor& x) -> Tensor {
    return forward_naming_module(*m, [&] { return m->forward(x); });
  };
}

}  // namespace brisk::nn::detail
