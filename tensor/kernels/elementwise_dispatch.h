#pragma once
// The elementwise kernels of every backend, from op to functor to dtype, written once from the
// lists of tensor/op_table.h. A backend supplies the loop that applies a functor to its
// tensors, as a type with one static member
//
//   template <typename F, typename... Inputs>
//   static void apply(const Tensor& out, const F& f, const Inputs&... inputs);
//
// (cpu_kernel on the CPU, gpu_kernel on CUDA), and calls unary/binary/ternary<Loop>. The
// functor F it is given maps storage values to storage values: it loads each input as its
// storage type S, computes in opmath_t<S> (float for bfloat16/float16) and rounds the result
// back to S, or writes bool for the Bool rows.
#include <type_traits>
#include <utility>

#include "tensor/dispatch.h"
#include "tensor/functors/binary.h"
#include "tensor/functors/cast.h"
#include "tensor/functors/ternary.h"
#include "tensor/functors/unary.h"
#include "tensor/op_kinds.h"
#include "tensor/tensor.h"

namespace brisk::kernels {

// The storage-to-storage adapter around a functor Op computing in opmath_t<S>: one S per input
// (Inputs is S once for each), the result written as Out.
template <typename Op, typename S, typename Out, typename... Inputs>
struct Adapted {
  Op op;
  BRISK_INLINE Out operator()(Inputs... x) const { return cast<Out>(op(cast<opmath_t<S>>(x)...)); }
};

// where(): selecting needs no arithmetic, so values move as they are stored.
template <typename S>
struct Select {
  BRISK_INLINE S operator()(bool cond, S a, S b) const { return functors::Where<S>()(cond, a, b); }
};

namespace detail {

template <typename T, typename>
using first_t = T;

template <typename Op>
Op make_functor(OpParams p) {
  if constexpr (std::is_constructible_v<Op, OpParams>) {
    return Op(p);
  } else {
    return Op();
  }
}

// Runs Op<opmath_t<S>> through Loop for the storage type S in DTypes that `dtype` names.
template <typename Loop, template <typename> class Op, ResultKind kResult, typename DTypes, typename... Inputs>
void run(DTypes types, const char* name, DType dtype, OpParams p, const Tensor& out, const Inputs&... inputs) {
  dispatch(types, dtype, name, [&](auto tag) {
    using S = typename decltype(tag)::type;
    using C = opmath_t<S>;
    auto op = make_functor<Op<C>>(p);
    using R = decltype(op(std::declval<first_t<C, Inputs>>()...));
    static_assert(std::is_same_v<R, bool> == (kResult == ResultKind::Bool || std::is_same_v<C, bool>),
                  "tensor/op_table.h: an op's Result is Bool exactly when its functor returns bool");
    using Out = std::conditional_t<std::is_same_v<R, bool>, bool, S>;
    Loop::apply(out, Adapted<decltype(op), S, Out, first_t<S, Inputs>...>{op}, inputs...);
  });
}

// x ** a: the common exponents skip pow, as PyTorch does, so every device rounds them alike.
template <typename Loop>
void pow_scalar(const Tensor& out, const Tensor& in, OpParams p) {
  constexpr auto kSame = ResultKind::Same;
  bool floating = is_floating_point(in.dtype());
  if (p.a == 2.0) return run<Loop, functors::Square, kSame>(NumericTypes{}, "pow", in.dtype(), p, out, in);
  if (floating && p.a == 0.5) return run<Loop, functors::Sqrt, kSame>(FloatingTypes{}, "pow", in.dtype(), p, out, in);
  if (floating && p.a == -1.0) {
    return run<Loop, functors::Reciprocal, kSame>(FloatingTypes{}, "pow", in.dtype(), p, out, in);
  }
  run<Loop, functors::PowScalar, kSame>(AllTypes{}, "pow", in.dtype(), p, out, in);
}

}  // namespace detail

template <typename Loop>
void unary(UnaryOp op, const Tensor& out, const Tensor& in, OpParams p) {
  switch (op) {
#define BRISK_UNARY_CASE(Op, name, Functor, DTypes, Result, ...) \
  case UnaryOp::Op:                                              \
    return detail::run<Loop, functors::Functor, ResultKind::Result>(DTypes{}, #name, in.dtype(), p, out, in);
    BRISK_UNARY_OPS(BRISK_UNARY_CASE)
#undef BRISK_UNARY_CASE
    case UnaryOp::PowScalar: return detail::pow_scalar<Loop>(out, in, p);
    case UnaryOp::Fill:
      return detail::run<Loop, functors::Fill, ResultKind::Same>(AllTypes{}, "fill_", out.dtype(), p, out);
  }
}

template <typename Loop>
void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, OpParams p) {
  switch (op) {
#define BRISK_BINARY_CASE(Op, name, Functor, DTypes, Result, ...) \
  case BinaryOp::Op:                                              \
    return detail::run<Loop, functors::Functor, ResultKind::Result>(DTypes{}, #name, a.dtype(), p, out, a, b);
    BRISK_BINARY_OPS(BRISK_BINARY_CASE)
#undef BRISK_BINARY_CASE
  }
}

template <typename Loop>
void ternary(TernaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c, OpParams p) {
  switch (op) {
#define BRISK_TERNARY_CASE(Op, name, Functor, DTypes, Result, ...) \
  case TernaryOp::Op:                                              \
    return detail::run<Loop, functors::Functor, ResultKind::Result>(DTypes{}, #name, a.dtype(), p, out, a, b, c);
    BRISK_TERNARY_OPS(BRISK_TERNARY_CASE)
#undef BRISK_TERNARY_CASE
    case TernaryOp::Where:
      // a is the bool condition.
      return dispatch(AllTypes{}, b.dtype(), "where", [&](auto tag) {
        using S = typename decltype(tag)::type;
        Loop::apply(out, Select<S>{}, a, b, c);
      });
  }
}

}  // namespace brisk::kernels
