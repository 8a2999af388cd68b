#pragma once
// Names of the elementwise, reduction and random kernels a Backend implements. The math of
// each lives once, as a functor in tensor/functors/, shared by the CPU and CUDA backends.
#include <cstdint>

namespace brisk {

enum class UnaryOp : uint8_t {
  Neg, Abs, Exp, Log, Sqrt, Rsqrt, Square, Reciprocal, Sin, Cos, Sign,
  Relu, Sigmoid, Tanh, Gelu, GeluTanh, Silu, LogicalNot,
  Clamp,      // params.a = min, params.b = max (±inf when absent)
  PowScalar,  // x ** params.a
  RPowScalar, // params.a ** x
  Fill,       // params.a (ignores the input's value)
};

enum class BinaryOp : uint8_t {
  Add,  // a + params.a * b  (alpha)
  Sub,  // a - params.a * b
  Mul, Div, Pow, Maximum, Minimum,
  Lerp,  // a + params.a * (b - a): torch.lerp with a number weight (floating point only)
  Eq, Ne, Lt, Le, Gt, Ge,  // write bool
  LogicalAnd, LogicalOr,   // write bool
  // Fused backward kernels: (grad, saved) -> grad_input.
  ReluBackward,     // saved = input
  SigmoidBackward,  // saved = output
  TanhBackward,     // saved = output
  GeluBackward,     // saved = input
  GeluTanhBackward, // saved = input
  SiluBackward,     // saved = input
};

enum class TernaryOp : uint8_t {
  Where,       // cond ? a : b, cond is bool
  Clamp,       // min(max(x, lo), hi)
  Addcmul,     // a + params.a * b * c
  Addcdiv,     // a + params.a * b / c
};

enum class ReduceOp : uint8_t {
  Sum, Prod, Max, Min,  // Max/Min write values and, when requested, int64 indices
  ArgMax, ArgMin,       // write int64 indices only
  Mean, Var,            // Var: params.a = correction
  LogSumExp, Norm,      // Norm: params.a = p
};

enum class RandomOp : uint8_t {
  Uniform,    // [params.a, params.b)
  Normal,     // mean params.a, std params.b
  Bernoulli,  // probability params.a
};

// Scalar parameters of a kernel, in float64 whatever the tensor dtype.
struct OpParams {
  double a = 0.0;
  double b = 0.0;
};

// The PyTorch name of an op ("add", "sigmoid_backward", "logsumexp"), for error messages.
const char* op_name(UnaryOp op);
const char* op_name(BinaryOp op);
const char* op_name(TernaryOp op);
const char* op_name(ReduceOp op);

}  // namespace brisk
