// CpuBackend::reduce: picks the functor and accumulation type for the op and dtype, then
// runs the reduction loop of tensor/cpu/reduce_loop.h.
//
// Output dtypes (the native op allocates accordingly): Sum and Prod of bool/integral inputs
// write int64; every other op writes the input's dtype; indices are int64.
#include <cmath>
#include <type_traits>

#include "tensor/cpu/cpu_backend.h"
#include "tensor/cpu/reduce_loop.h"
#include "tensor/dispatch.h"
#include "tensor/functors/reduce.h"

namespace brisk::cpu {
namespace {

namespace f = functors;

// Accumulation on the CPU: float64 for float32 (cheap here, and more accurate), float32 for
// the 16-bit floats, int64 for bool and integers.
template <typename T>
using acc_t = std::conditional_t<std::is_floating_point_v<T>, double,
                                 std::conditional_t<is_reduced_float_v<T>, float, int64_t>>;
template <typename T>
using sum_out_t = std::conditional_t<std::is_integral_v<T>, int64_t, T>;

template <typename Out, typename Op>
auto value_writer(const Op& op) {
  return [&op](char* const* out, const typename Op::acc_t& acc) {
    *reinterpret_cast<Out*>(out[0]) = cast<Out>(op.project(acc));
  };
}

template <typename In, typename Op, typename Write>
void run(const Op& op, const Tensor& in, const std::vector<int64_t>& dims,
         std::initializer_list<const Tensor*> outputs, const Write& write) {
  reduce_loop<In>(iter::make_reduce_shape(in, dims, outputs), op, write);
}

template <typename In, typename Op>
void run_value(const Op& op, const Tensor& out, const Tensor& in, const std::vector<int64_t>& dims) {
  BRISK_CHECK(out.dtype() == dtype_of<sum_out_t<In>>::value || out.dtype() == in.dtype(),
              "reduce: output dtype {} for input dtype {}", out.dtype(), in.dtype());
  dispatch_all(out.dtype(), "reduce", [&](auto tag) {
    using Out = typename decltype(tag)::type;
    if constexpr (std::is_same_v<Out, In> || std::is_same_v<Out, sum_out_t<In>>) {
      run<In>(op, in, dims, {&out}, value_writer<Out>(op));
    }
  });
}

template <bool IsMax>
void extremum(const char* name, const Tensor& out, const Tensor& indices, const Tensor& in,
              const std::vector<int64_t>& dims) {
  dispatch_all(in.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = opmath_t<T>;
    if (!indices.defined()) {
      run_value<T>(f::ExtremumReduce<C, IsMax>(), out, in, dims);
      return;
    }
    f::ArgExtremumReduce<C, IsMax> op;
    run<T>(op, in, dims, {&out, &indices}, [](char* const* o, const typename decltype(op)::acc_t& acc) {
      *reinterpret_cast<T*>(o[0]) = cast<T>(acc.value);
      *reinterpret_cast<int64_t*>(o[1]) = acc.index;
    });
  });
}

template <bool IsMax>
void arg_extremum(const char* name, const Tensor& indices, const Tensor& in, const std::vector<int64_t>& dims) {
  dispatch_numeric(in.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    f::ArgExtremumReduce<opmath_t<T>, IsMax> op;
    run<T>(op, in, dims, {&indices}, [](char* const* o, const typename decltype(op)::acc_t& acc) {
      *reinterpret_cast<int64_t*>(o[0]) = acc.index;
    });
  });
}

void norm(const Tensor& out, const Tensor& in, const std::vector<int64_t>& dims, double p) {
  dispatch_floating(in.dtype(), "norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = acc_t<T>;
    if (p == 2.0) return run_value<T>(f::NormTwoReduce<A>(), out, in, dims);
    if (p == 1.0) return run_value<T>(f::NormOneReduce<A>(), out, in, dims);
    if (p == 0.0) return run_value<T>(f::NormZeroReduce<A>(), out, in, dims);
    if (std::isinf(p) && p > 0) return run_value<T>(f::NormInfReduce<A, true>(), out, in, dims);
    if (std::isinf(p)) return run_value<T>(f::NormInfReduce<A, false>(), out, in, dims);
    run_value<T>(f::NormPReduce<A>(p), out, in, dims);
  });
}

int64_t reduced_count(const Tensor& in, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= in.sizes()[d];
  return n;
}

}  // namespace

void CpuBackend::reduce(ReduceOp op, const Tensor& out, const Tensor& indices, const Tensor& in,
                        const std::vector<int64_t>& dims, OpParams p) {
  const char* name = op_name(op);
  switch (op) {
    case ReduceOp::Sum:
      return dispatch_all(in.dtype(), name, [&](auto tag) {
        using T = typename decltype(tag)::type;
        run_value<T>(f::SumReduce<acc_t<T>>(), out, in, dims);
      });
    case ReduceOp::Prod:
      return dispatch_all(in.dtype(), name, [&](auto tag) {
        using T = typename decltype(tag)::type;
        run_value<T>(f::ProdReduce<acc_t<T>>(), out, in, dims);
      });
    case ReduceOp::Mean:
      return dispatch_floating(in.dtype(), name, [&](auto tag) {
        using T = typename decltype(tag)::type;
        run_value<T>(f::MeanReduce<acc_t<T>>(reduced_count(in, dims)), out, in, dims);
      });
    case ReduceOp::Max: return extremum<true>("max", out, indices, in, dims);
    case ReduceOp::Min: return extremum<false>("min", out, indices, in, dims);
    case ReduceOp::ArgMax: return arg_extremum<true>(name, indices, in, dims);
    case ReduceOp::ArgMin: return arg_extremum<false>(name, indices, in, dims);
    case ReduceOp::Var:
      return dispatch_floating(in.dtype(), name, [&](auto tag) {
        using T = typename decltype(tag)::type;
        run_value<T>(f::VarReduce<acc_t<T>>(p.a), out, in, dims);
      });
    case ReduceOp::LogSumExp:
      return dispatch_floating(in.dtype(), name, [&](auto tag) {
        using T = typename decltype(tag)::type;
        run_value<T>(f::LogSumExpReduce<acc_t<T>>(), out, in, dims);
      });
    case ReduceOp::Norm: return norm(out, in, dims, p.a);
  }
}

}  // namespace brisk::cpu
