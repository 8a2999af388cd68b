#pragma once
// Turning "something module-like" into a registered module plus its type-erased forward,
// for the containers (Sequential, ModuleList) that hold modules of different types.
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

#include "nn/module_holder.h"

namespace brisk::nn::detail {

// The shared_ptr to the module of a holder or of a shared_ptr.
template <typename M>
auto module_pointer(const M& module) {
  if constexpr (std::is_base_of_v<ModuleHolderBase, M>) {
    return module.ptr();
  } else {
    static_assert(std::is_base_of_v<Module, typename M::element_type>,
                  "a container takes module holders (nn::Linear) or std::shared_ptr<SomeModule>");
    return module;
  }
}

// A call of the module's Tensor -> Tensor forward; an error raised inside names the module.
template <typename Ptr>
std::function<Tensor(const Tensor&)> unary_forward(const Ptr& module) {
  return [m = module.get()](const Tensor& x) -> Tensor {
    return forward_naming_module(*m, [&] { return m->forward(x); });
  };
}

}  // namespace brisk::nn::detail
