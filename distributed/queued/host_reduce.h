#pragma once
// The arithmetic Gloo does on the host: the reduce functions for each ReduceOp and dtype, AVG's
// division, and the dtype dispatch. Internal to //distributed/gloo (MPI reduces inside MPI and
// divides with native ops, where its buffers live: host or device memory).
#include <cstddef>
#include <functional>
#include <type_traits>

#include "distributed/reduce_op.h"
#include "tensor/dispatch.h"
#include "tensor/error.h"
#include "tensor/half.h"

namespace brisk::dist::host_reduce {

using ReduceFn = std::function<void(void*, const void*, const void*, size_t)>;

template <typename T>
constexpr bool kIs16Bit = std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>;

template <typename T>
using Acc = std::conditional_t<kIs16Bit<T>, float, T>;

template <typename T, typename F>
void combine(void* c, const void* a, const void* b, size_t n) {
  auto* out = static_cast<T*>(c);
  const auto* x = static_cast<const T*>(a);
  const auto* y = static_cast<const T*>(b);
  F f;
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<T>(f(static_cast<Acc<T>>(x[i]), static_cast<Acc<T>>(y[i])));
}

// clang-format off
struct Sum { template <typename A> A operator()(A a, A b) const { return a + b; } };
struct Product { template <typename A> A operator()(A a, A b) const { return a * b; } };
struct Min { template <typename A> A operator()(A a, A b) const { return b < a ? b : a; } };
struct Max { template <typename A> A operator()(A a, A b) const { return a < b ? b : a; } };
// clang-format on

template <typename T>
ReduceFn reduce_fn(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::AVG: return &combine<T, Sum>;
    case ReduceOp::PRODUCT: return &combine<T, Product>;
    case ReduceOp::MIN: return &combine<T, Min>;
    case ReduceOp::MAX: return &combine<T, Max>;
  }
  BRISK_FAIL("unknown ReduceOp");
}

// AVG = SUM / size; integers truncate toward zero, as C++ and PyTorch do.
template <typename T>
void divide(T* data, int64_t n, int size) {
  for (int64_t i = 0; i < n; ++i) data[i] = static_cast<T>(static_cast<Acc<T>>(data[i]) / static_cast<Acc<T>>(size));
}

// f(TypeTag<T>{}) for a dtype the collective checks accepted (collective_checks.h): every
// dtype but bool.
template <typename F>
void dispatch_numeric(DType dtype, F&& f) {
  dispatch(NumericTypes{}, dtype, "host reduction", f);
}

}  // namespace brisk::dist::host_reduce
