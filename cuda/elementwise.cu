// CudaBackend::unary/binary/ternary: one dtype dispatch per call, then the op's functor from
// tensor/functors/ through gpu_kernel (cuda/loops.cu.h). The dtypes each op accepts are the
// CPU backend's (tensor/cpu/elementwise.cc), so both devices accept and refuse the same
// calls. bfloat16/float16 load as 16 bits, compute in float and round back on store.
#include <type_traits>
#include <utility>

#include "cuda/cuda_backend.h"
#include "cuda/loops.cu.h"
#include "tensor/dispatch.h"
#include "tensor/functors/binary.h"
#include "tensor/functors/cast.h"
#include "tensor/functors/ternary.h"
#include "tensor/functors/unary.h"

namespace brisk::cuda {
namespace {

namespace f = functors;

// Adapters from storage types to an op computing in C = opmath_t<S>: the kernel sees S (or
// bool) in memory, the functor sees C.
template <typename Op, typename S, typename Out>
struct Nullary {
  Op op;
  __device__ Out operator()() const { return cast<Out>(op()); }
};

template <typename Op, typename S, typename Out>
struct Unary {
  Op op;
  __device__ Out operator()(S a) const { return cast<Out>(op(cast<opmath_t<S>>(a))); }
};

template <typename Op, typename S, typename Out>
struct Binary {
  Op op;
  __device__ Out operator()(S a, S b) const { return cast<Out>(op(cast<opmath_t<S>>(a), cast<opmath_t<S>>(b))); }
};

template <typename Op, typename S, typename Out>
struct Ternary {
  Op op;
  __device__ Out operator()(S a, S b, S c) const {
    using C = opmath_t<S>;
    return cast<Out>(op(cast<C>(a), cast<C>(b), cast<C>(c)));
  }
};

// Selecting needs no arithmetic, so where() moves storage values as they are.
template <typename S>
struct Select {
  __device__ S operator()(bool cond, S a, S b) const { return f::Where<S>()(cond, a, b); }
};

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

// Runs Op<opmath_t<S>> for the storage type S in Types that `dtype` names. Out is S, or bool
// when the functor returns bool (comparisons, logical ops).
template <template <typename> class Op, typename Types, typename... Inputs>
void run(Types types, const char* name, DType dtype, OpParams p, const Tensor& out, const Inputs&... inputs) {
  dispatch(types, dtype, name, [&](auto tag) {
    using S = typename decltype(tag)::type;
    using C = opmath_t<S>;
    auto op = make_functor<Op<C>>(p);
    using R = decltype(op(std::declval<first_t<C, Inputs>>()...));
    using Out = std::conditional_t<std::is_same_v<R, bool>, bool, S>;
    if constexpr (sizeof...(Inputs) == 0) {
      gpu_kernel(out, Nullary<decltype(op), S, Out>{op});
    } else if constexpr (sizeof...(Inputs) == 1) {
      gpu_kernel(out, Unary<decltype(op), S, Out>{op}, inputs...);
    } else if constexpr (sizeof...(Inputs) == 2) {
      gpu_kernel(out, Binary<decltype(op), S, Out>{op}, inputs...);
    } else {
      gpu_kernel(out, Ternary<decltype(op), S, Out>{op}, inputs...);
    }
  });
}

void pow_scalar(const Tensor& out, const Tensor& in, OpParams p) {
  // The same fast paths as the CPU, so both round alike.
  bool floating = is_floating_point(in.dtype());
  if (p.a == 2.0) return run<f::Square>(NumericTypes{}, "pow", in.dtype(), p, out, in);
  if (floating && p.a == 0.5) return run<f::Sqrt>(FloatingTypes{}, "pow", in.dtype(), p, out, in);
  if (floating && p.a == -1.0) return run<f::Reciprocal>(FloatingTypes{}, "pow", in.dtype(), p, out, in);
  run<f::PowScalar>(AllTypes{}, "pow", in.dtype(), p, out, in);
}

}  // namespace

void CudaBackend::unary(UnaryOp op, const Tensor& out, const Tensor& in, OpParams p) {
  const char* name = op_name(op);
  DType t = in.dtype();
  switch (op) {
    case UnaryOp::Neg: return run<f::Neg>(NumericTypes{}, name, t, p, out, in);
    case UnaryOp::Abs: return run<f::Abs>(NumericTypes{}, name, t, p, out, in);
    case UnaryOp::Exp: return run<f::Exp>(FloatingTypes{}, name, t, p, out, in);
    case UnaryOp::Log: return run<f::Log>(FloatingTypes{}, name, t, p, out, in);
    case UnaryOp::Sqrt: return run<f::Sqrt>(FloatingTypes{}, name, t, p, out, in);
    case UnaryOp::Rsqrt: return run<f::Rsqrt>(FloatingTypes{}, name, t, p, out, in);
    case UnaryOp::Square: return run<f::Square>(NumericTypes{}, name, t, p, out, in);
    case UnaryOp::Reciprocal: return run<f::Reciprocal>(FloatingTypes{}, name, t, p, out, in);
    case UnaryOp::Sin: return run<f::Sin>(FloatingTypes{}, name, t, p, out, in);
    case UnaryOp::Cos: return run<f::Cos>(FloatingTypes{}, name, t, p, out, in);
    case UnaryOp::Sign: return run<f::Sign>(AllTypes{}, name, t, p, out, in);
    case UnaryOp::Relu: return run<f::Relu>(NumericTypes{}, name, t, p, out, in);
    case UnaryOp::Sigmoid: return run<f::Sigmoid>(FloatingTypes{}, name, t, p, out, in);
    case UnaryOp::Tanh: return run<f::Tanh>(FloatingTypes{}, name, t, p, out, in);
    case UnaryOp::Gelu: return run<f::Gelu>(FloatingTypes{}, name, t, p, out, in);
    case UnaryOp::GeluTanh: return run<f::GeluTanh>(FloatingTypes{}, name, t, p, out, in);
    case UnaryOp::Silu: return run<f::Silu>(FloatingTypes{}, name, t, p, out, in);
    case UnaryOp::LogicalNot: return run<f::LogicalNot>(AllTypes{}, name, t, p, out, in);
    case UnaryOp::Clamp: return run<f::Clamp>(NumericTypes{}, name, t, p, out, in);
    case UnaryOp::PowScalar: return pow_scalar(out, in, p);
    case UnaryOp::RPowScalar: return run<f::RPowScalar>(AllTypes{}, name, t, p, out, in);
    case UnaryOp::Fill: return run<f::Fill>(AllTypes{}, name, out.dtype(), p, out);
  }
  BRISK_FAIL("{}: no CUDA kernel for this op", name);
}

void CudaBackend::binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, OpParams p) {
  const char* name = op_name(op);
  DType t = a.dtype();
  switch (op) {
    case BinaryOp::Add: return run<f::Add>(AllTypes{}, name, t, p, out, a, b);
    case BinaryOp::Sub: return run<f::Sub>(NumericTypes{}, name, t, p, out, a, b);
    case BinaryOp::Mul: return run<f::Mul>(AllTypes{}, name, t, p, out, a, b);
    case BinaryOp::Div: return run<f::Div>(FloatingTypes{}, name, t, p, out, a, b);
    case BinaryOp::Pow: return run<f::Pow>(AllTypes{}, name, t, p, out, a, b);
    case BinaryOp::Maximum: return run<f::Maximum>(AllTypes{}, name, t, p, out, a, b);
    case BinaryOp::Minimum: return run<f::Minimum>(AllTypes{}, name, t, p, out, a, b);
    case BinaryOp::Lerp: return run<f::Lerp>(FloatingTypes{}, name, t, p, out, a, b);
    case BinaryOp::Eq: return run<f::Eq>(AllTypes{}, name, t, p, out, a, b);
    case BinaryOp::Ne: return run<f::Ne>(AllTypes{}, name, t, p, out, a, b);
    case BinaryOp::Lt: return run<f::Lt>(AllTypes{}, name, t, p, out, a, b);
    case BinaryOp::Le: return run<f::Le>(AllTypes{}, name, t, p, out, a, b);
    case BinaryOp::Gt: return run<f::Gt>(AllTypes{}, name, t, p, out, a, b);
    case BinaryOp::Ge: return run<f::Ge>(AllTypes{}, name, t, p, out, a, b);
    case BinaryOp::LogicalAnd: return run<f::LogicalAnd>(AllTypes{}, name, t, p, out, a, b);
    case BinaryOp::LogicalOr: return run<f::LogicalOr>(AllTypes{}, name, t, p, out, a, b);
    case BinaryOp::ReluBackward: return run<f::ReluBackward>(FloatingTypes{}, name, t, p, out, a, b);
    case BinaryOp::SigmoidBackward: return run<f::SigmoidBackward>(FloatingTypes{}, name, t, p, out, a, b);
    case BinaryOp::TanhBackward: return run<f::TanhBackward>(FloatingTypes{}, name, t, p, out, a, b);
    case BinaryOp::GeluBackward: return run<f::GeluBackward>(FloatingTypes{}, name, t, p, out, a, b);
    case BinaryOp::GeluTanhBackward: return run<f::GeluTanhBackward>(FloatingTypes{}, name, t, p, out, a, b);
    case BinaryOp::SiluBackward: return run<f::SiluBackward>(FloatingTypes{}, name, t, p, out, a, b);
  }
  BRISK_FAIL("{}: no CUDA kernel for this op", name);
}

void CudaBackend::ternary(TernaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c,
                          OpParams p) {
  const char* name = op_name(op);
  switch (op) {
    case TernaryOp::Where:
      // a is the bool condition.
      return dispatch(AllTypes{}, b.dtype(), name, [&](auto tag) {
        using S = typename decltype(tag)::type;
        gpu_kernel(out, Select<S>{}, a, b, c);
      });
    case TernaryOp::Clamp: return run<f::ClampTensor>(NumericTypes{}, name, a.dtype(), p, out, a, b, c);
    case TernaryOp::Addcmul: return run<f::Addcmul>(NumericTypes{}, name, a.dtype(), p, out, a, b, c);
    case TernaryOp::Addcdiv: return run<f::Addcdiv>(FloatingTypes{}, name, a.dtype(), p, out, a, b, c);
  }
  BRISK_FAIL("{}: no CUDA kernel for this op", name);
}

}  // namespace brisk::cuda
