#pragma once
// The reductions of every backend, from op to functor (tensor/functors/reduce.h), accumulation
// type and dtype, written once. A backend supplies a Reducer bound to its input, dims and
// outputs, with
//
//   static constexpr bool kFloat32AccumulatesInFloat64;      // see accumulate_t below
//   template <typename In, typename Op> void value(const char* name, const Op& op) const;
//       // writes op.project(acc) to the value output, as the output's dtype
//   template <typename In, typename Op> void value_and_index(const char* name, const Op& op) const;
//       // writes an ArgExtremumReduce's value and int64 index
//   template <typename In, typename Op> void index(const char* name, const Op& op) const;
//       // writes an ArgExtremumReduce's int64 index only
//
// Output dtypes (the native op allocates accordingly): Sum and Prod of bool/integral inputs
// write int64; every other op writes the input's dtype; indices are int64.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "tensor/dispatch.h"
#include "tensor/functors/cast.h"
#include "tensor/functors/reduce.h"
#include "tensor/op_kinds.h"

namespace brisk::kernels {

// The type sums, products, means, variances and norms of storage type T accumulate in:
//   - float64 for float64, float32 for bfloat16/float16, int64 for bool and integers;
//   - float32 in float64 where kFloat32InFloat64 (the CPU): there a float64 add costs what a
//     float32 add does in these loops and long float32 sums keep their precision; in float32
//     on CUDA, where float64 runs at a fraction of float32's rate on most GPUs and the
//     parallel tree of partial sums already keeps the error small (PyTorch does the same).
template <typename T, bool kFloat32InFloat64>
using accumulate_t =
    std::conditional_t<std::is_same_v<T, double> || (kFloat32InFloat64 && std::is_same_v<T, float>), double,
                       std::conditional_t<std::is_same_v<T, float> || is_reduced_float_v<T>, float, int64_t>>;

// The dtype a Sum or Prod of T writes.
template <typename T>
using sum_out_t = std::conditional_t<std::is_integral_v<T>, int64_t, T>;

template <typename Reducer>
void reduce(ReduceOp op, DType dtype, OpParams p, bool with_indices, int64_t reduced_count, const Reducer& r) {
  namespace f = functors;
  const char* name = op_name(op);
  auto value = [&](auto types, auto make_op) {
    dispatch(types, dtype, name, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using A = accumulate_t<T, Reducer::kFloat32AccumulatesInFloat64>;
      r.template value<T>(name, make_op(TypeTag<A>{}));
    });
  };
  auto extremum = [&](const char* label, auto is_max) {
    dispatch(AllTypes{}, dtype, label, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = opmath_t<T>;
      if (with_indices) {
        r.template value_and_index<T>(label, f::ArgExtremumReduce<C, decltype(is_max)::value>());
      } else {
        r.template value<T>(label, f::ExtremumReduce<C, decltype(is_max)::value>());
      }
    });
  };
  auto arg_extremum = [&](auto is_max) {
    dispatch(NumericTypes{}, dtype, name, [&](auto tag) {
      using T = typename decltype(tag)::type;
      r.template index<T>(name, f::ArgExtremumReduce<opmath_t<T>, decltype(is_max)::value>());
    });
  };
  switch (op) {
    case ReduceOp::Sum: return value(AllTypes{}, [](auto a) { return f::SumReduce<typename decltype(a)::type>(); });
    case ReduceOp::Prod: return value(AllTypes{}, [](auto a) { return f::ProdReduce<typename decltype(a)::type>(); });
    case ReduceOp::Mean:
      return value(FloatingTypes{}, [&](auto a) { return f::MeanReduce<typename decltype(a)::type>(reduced_count); });
    case ReduceOp::Var:
      return value(FloatingTypes{}, [&](auto a) { return f::VarReduce<typename decltype(a)::type>(p.a); });
    case ReduceOp::LogSumExp:
      return value(FloatingTypes{}, [](auto a) { return f::LogSumExpReduce<typename decltype(a)::type>(); });
    case ReduceOp::Max: return extremum("max", std::true_type{});
    case ReduceOp::Min: return extremum("min", std::false_type{});
    case ReduceOp::ArgMax: return arg_extremum(std::true_type{});
    case ReduceOp::ArgMin: return arg_extremum(std::false_type{});
    case ReduceOp::Norm:
      return dispatch(FloatingTypes{}, dtype, name, [&](auto tag) {
        using T = typename decltype(tag)::type;
        using A = accumulate_t<T, Reducer::kFloat32AccumulatesInFloat64>;
        double order = p.a;
        if (order == 2.0) return r.template value<T>(name, f::NormTwoReduce<A>());
        if (order == 1.0) return r.template value<T>(name, f::NormOneReduce<A>());
        if (order == 0.0) return r.template value<T>(name, f::NormZeroReduce<A>());
        if (std::isinf(order) && order > 0) return r.template value<T>(name, f::NormInfReduce<A, true>());
        if (std::isinf(order)) return r.template value<T>(name, f::NormInfReduce<A, false>());
        r.template value<T>(name, f::NormPReduce<A>(order));
      });
  }
}

}  // namespace brisk::kernels
