#pragma once
// Turns a runtime DType into a C++ type once per kernel call, so the loops inside are
// compiled per type and never switch on the dtype:
//
//   dispatch_all(t.dtype(), "copy_", [&](auto tag) {
//     using T = typename decltype(tag)::type;
//     ...
//   });
//
// Each variant accepts one set of dtypes; any other dtype raises brisk::Error naming the op,
// the dtype and the dtypes the op supports. The lambda's return value is passed through.
#include <string>

#include "tensor/dtype.h"
#include "tensor/error.h"

namespace brisk {

template <typename T>
struct TypeTag {
  using type = T;
};

template <typename... Ts>
struct TypeList {};

// Every dtype Brisk stores.
using AllTypes = TypeList<float, double, int64_t, int32_t, uint8_t, bool, BFloat16, Half>;
// All but bool: ops PyTorch refuses on bool (neg, abs, relu, argmax, ...).
using NumericTypes = TypeList<float, double, int64_t, int32_t, uint8_t, BFloat16, Half>;
using FloatingTypes = TypeList<float, double, BFloat16, Half>;

namespace detail {

template <typename... Ts>
std::string dtype_names() {
  std::string names;
  ((names += (names.empty() ? "" : ", ") + std::string(dtype_name(dtype_of<Ts>::value))), ...);
  return names;
}

template <typename F, typename T, typename... Rest>
decltype(auto) dispatch_one(DType dtype, F& f) {
  if constexpr (sizeof...(Rest) == 0) {
    return f(TypeTag<T>{});
  } else {
    if (dtype == dtype_of<T>::value) return f(TypeTag<T>{});
    return dispatch_one<F, Rest...>(dtype, f);
  }
}

template <typename... Ts>
bool contains(DType dtype) {
  return ((dtype == dtype_of<Ts>::value) || ...);
}

}  // namespace detail

template <typename... Ts, typename F>
decltype(auto) dispatch(TypeList<Ts...>, DType dtype, const char* op, F&& f) {
  BRISK_CHECK(detail::contains<Ts...>(dtype), "{}: not implemented for dtype {} (supported: {})", op, dtype,
              detail::dtype_names<Ts...>());
  return detail::dispatch_one<F, Ts...>(dtype, f);
}

template <typename F>
decltype(auto) dispatch_all(DType dtype, const char* op, F&& f) {
  return dispatch(AllTypes{}, dtype, op, f);
}

template <typename F>
decltype(auto) dispatch_floating(DType dtype, const char* op, F&& f) {
  return dispatch(FloatingTypes{}, dtype, op, f);
}

}  // namespace brisk
