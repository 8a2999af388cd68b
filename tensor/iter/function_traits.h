#pragma once
// Parameter and return types of a lambda or functor with a const operator(): the element
// types a kernel reads and writes (cpu_kernel, gpu_kernel).
#include <cstddef>
#include <tuple>

namespace brisk::iter {

template <typename F>
struct function_traits : function_traits<decltype(&F::operator())> {};
template <typename C, typename R, typename... Args>
struct function_traits<R (C::*)(Args...) const> {
  using result_type = R;
  static constexpr size_t arity = sizeof...(Args);
  template <size_t I>
  using arg = std::tuple_element_t<I, std::tuple<Args...>>;
};

}  // namespace brisk::iter
