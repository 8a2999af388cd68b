#pragma once
// ModuleHolder<Impl>: a shared handle to a module, as torch::nn::ModuleHolder. Layers are
// written as `LinearImpl` and used through the holder `Linear` that BRISK_MODULE declares:
//
//   nn::Linear fc{nullptr};                 // empty, assigned later
//   fc = nn::Linear(784, 64);               // constructs a LinearImpl(784, 64)
//   fc = nn::Linear(nn::LinearOptions(784, 64).bias(false));
//   Tensor y = fc(x);                       // fc->forward(x)
//   fc->weight;                             // members through ->
//
// Copies of a holder share the module.
#include <cstddef>
#include <memory>
#include <ostream>
#include <type_traits>
#include <utility>

#include "nn/module.h"
#include "tensor/error.h"

namespace brisk::nn {

class ModuleHolderBase {};

template <typename Contained>
class ModuleHolder : public ModuleHolderBase {
 public:
  // Default-constructs the module when it can be (`nn::Sequential seq;`).
  ModuleHolder() : impl_(default_construct()) {}
  // An empty holder, to be assigned later.
  ModuleHolder(std::nullptr_t) {}
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}
  // Constructs the module from these arguments (which may be other holders:
  // `nn::Sequential(nn::Linear(4, 2), nn::ReLU())`).
  template <typename Head, typename... Tail,
            typename = std::enable_if_t<!std::is_base_of_v<ModuleHolder, std::decay_t<Head>> &&
                                        !std::is_same_v<std::decay_t<Head>, std::nullptr_t> &&
                                        !std::is_same_v<std::decay_t<Head>, std::shared_ptr<Contained>>>>
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Contained>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}

  Contained* operator->() const { return get(); }
  Contained& operator*() const { return *get(); }
  Contained* get() const {
    BRISK_CHECK(impl_ != nullptr, "ModuleHolder: use of an empty module holder (constructed from nullptr)");
    return impl_.get();
  }
  const std::shared_ptr<Contained>& ptr() const { return impl_; }
  bool is_empty() const { return impl_ == nullptr; }
  explicit operator bool() const { return impl_ != nullptr; }

  // Calls the module's forward; an error raised inside names the module
  // (forward_naming_module, nn/module.h).
  template <typename... Args>
  decltype(auto) operator()(Args&&... args) const {
    Contained* module = get();
    return forward_naming_module(*module,
                                 [&]() -> decltype(auto) { return module->forward(std::forward<Args>(args)...); });
  }
  // Indexing, for containers (Sequential, ModuleList).
  template <typename Arg>
  decltype(auto) operator[](Arg&& arg) const {
    return (*get())[std::forward<Arg>(arg)];
  }

 private:
  static std::shared_ptr<Contained> default_construct() {
    if constexpr (std::is_default_constructible_v<Contained>) {
      return std::make_shared<Contained>();
    } else {
      return nullptr;
    }
  }

  std::shared_ptr<Contained> impl_;
};

template <typename Contained>
std::ostream& operator<<(std::ostream& stream, const ModuleHolder<Contained>& holder) {
  return stream << *holder;
}

namespace detail {
// The shared_ptr to the module of a holder (nn::Linear) or of a std::shared_ptr<SomeModule>.
template <typename M>
auto module_pointer(const M& module) {
  if constexpr (std::is_base_of_v<ModuleHolderBase, M>) {
    return module.ptr();
  } else {
    static_assert(std::is_base_of_v<Module, typename M::element_type>,
                  "expected a module holder (nn::Linear) or a std::shared_ptr<SomeModule>");
    return module;
  }
}
}  // namespace detail

}  // namespace brisk::nn

// Declares `Name` as the holder of `NameImpl` (torch's TORCH_MODULE).
#define BRISK_MODULE(Name)                                     \
  class Name : public ::brisk::nn::ModuleHolder<Name##Impl> {  \
   public:                                                     \
    using ::brisk::nn::ModuleHolder<Name##Impl>::ModuleHolder; \
    using Impl = Name##Impl;                                   \
  }
// libtorch's name for BRISK_MODULE.
#define TORCH_MODULE(Name) BRISK_MODULE(Name)
