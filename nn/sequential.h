#pragma once
// nn::Sequential: modules applied one after another, each taking and returning one Tensor.
//
//   nn::Sequential net(nn::Linear(784, 64), nn::ReLU(), nn::Linear(64, 10));
//   net->push_back(nn::LogSoftmax(1));       // children are named "0", "1", ...
//   net->push_back("head", nn::Linear(10, 10));
//   Tensor y = net(x);
//   auto& fc = net->at<nn::LinearImpl>(0);   // typed access; net[0] is a shared_ptr<Module>
//
// Indexing, size() and iteration are ModuleList's.
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include "nn/module_holder.h"
#include "nn/module_list.h"

namespace brisk::nn {

namespace detail {
// Whether M's forward can be called with one Tensor (a loss's two-tensor forward hides it).
template <typename M, typename = void>
struct HasUnaryForward : std::false_type {};
template <typename M>
struct HasUnaryForward<M, std::void_t<decltype(std::declval<M&>().forward(std::declval<const Tensor&>()))>>
    : std::true_type {};
}  // namespace detail

class SequentialImpl : public ModuleListImpl {
 public:
  SequentialImpl() = default;
  template <typename First, typename... Rest>
  explicit SequentialImpl(First&& first, Rest&&... rest) {
    push_back(std::forward<First>(first));
    (push_back(std::forward<Rest>(rest)), ...);
  }

  std::string name() const override { return "Sequential"; }

  // Appends a module holder or std::shared_ptr to a module, named by its position. Each is
  // called through nn::Module::forward(x); a module whose forward takes other arguments (a
  // loss) does not compile here.
  template <typename M>
  void push_back(const M& module) {
    push_back(std::to_string(size()), module);
  }
  template <typename M>
  void push_back(std::string name, const M& module) {
    auto ptr = detail::module_pointer(module);
    static_assert(detail::HasUnaryForward<typename decltype(ptr)::element_type>::value,
                  "Sequential: a child's forward must take one Tensor (Tensor forward(const Tensor&) override)");
    append(std::move(name), std::move(ptr));
  }

  // Applies the modules in order; an empty Sequential is the identity.
  Tensor forward(const Tensor& input) override;
  // Applies the modules at [begin, end) in order (what checkpoint_sequential runs per segment).
  Tensor forward_range(size_t begin, size_t end, const Tensor& input) const;
};

BRISK_MODULE(Sequential);

}  // namespace brisk::nn
