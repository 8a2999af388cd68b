#pragma once
// Every elementwise, reduction and random kernel a Backend implements, listed once. The lists
// generate the op enums and names (tensor/op_kinds.h), the result-dtype rule of the native ops
// (tensor/native/elementwise.cc), the dtype dispatch of every backend (tensor/kernels/), the
// autocast policy of the differentiable ops (autograd/row_op.h) and, for the math, activation
// and comparison lists, their public functions and Tensor methods. A new op of those lists is
// one row here, one functor in tensor/functors/ and its derivative (docs/extending.md (d)).
// The ops of the other rows (and gelu) come in several overloads, take numbers of more than one
// kind or have a derivative of their own: their functions are written in autograd/ (declared
// in autograd/ops.h) and call their row through autograd::run_row; a signature column would
// only move their declarations here.
//
// Elementwise rows: X(Op, name, Functor, DTypes, Result, CpuCast, CudaCast)
//   name     PyTorch's name of the op: in error messages, and the C++ name where it has one;
//   Functor  the template in brisk::functors that computes the op in opmath_t<storage type>;
//   DTypes   the TypeList (tensor/dispatch.h) of storage dtypes the kernel accepts; any other
//            dtype is refused with an error naming the op and the dtypes it supports;
//   Result   the dtype the op computes in and writes, from its (promoted) input dtype, and the
//            inputs it refuses (ResultKind in tensor/op_kinds.h): Same, Bool (the functor
//            returns bool; the kernels check it when compiled), Float (integers compute in
//            float32: exp(int) is float32), SameNotBool, Negation, Floating, BoolAsInt64, or
//            NumberPromoted (bool and integer inputs promote with the op's numbers);
//   CpuCast, CudaCast  what autocast does to the op's inputs on the CPU and on CUDA (and the
//            simulated device): None, LowerPrecision, Float32 or Promote (CastPolicy in
//            autograd/autocast_policy.h, as torch.autocast's lists).
// The rows of math functions and activations end with one more column:
//   Saved    what the derivative reads: Input, Output or Nothing.
#include "brisk/requires_cxx17.h"

// Math functions of one tensor: brisk::<name>(x), Tensor::<name>(), Tensor::<name>_() and their
// forwards are generated from this list (autograd/ops.h, tensor/tensor.h, autograd/unary.cc,
// autograd/inplace.cc); the derivative <name>_backward(g, saved) is written in autograd/unary.cc.
// clang-format off
#define BRISK_UNARY_MATH_OPS(X)                                                     \
  X(Abs, abs, Abs, NumericTypes, SameNotBool, None, None, Input)                    \
  X(Exp, exp, Exp, FloatingTypes, Float, None, Float32, Output)                     \
  X(Log, log, Log, FloatingTypes, Float, None, Float32, Input)                      \
  X(Sqrt, sqrt, Sqrt, FloatingTypes, Float, None, None, Output)                     \
  X(Rsqrt, rsqrt, Rsqrt, FloatingTypes, Float, None, Float32, Output)               \
  X(Square, square, Square, NumericTypes, BoolAsInt64, None, None, Input)           \
  X(Reciprocal, reciprocal, Reciprocal, FloatingTypes, Float, None, Float32, Output) \
  X(Sin, sin, Sin, FloatingTypes, Float, None, None, Input)                         \
  X(Cos, cos, Cos, FloatingTypes, Float, None, None, Input)                         \
  X(Sign, sign, Sign, AllTypes, Same, None, None, Nothing)                          \
  X(Erf, erf, Erf, FloatingTypes, Float, None, None, Input)

// Activations: one row gives the forward kernel (a UnaryOp row) and its fused backward kernel
// Op##Backward, name##_backward, Functor##Backward (a BinaryOp row: (grad, saved) ->
// grad_input, FloatingTypes, Same, never cast). The forward's numbers, where it takes any, are
// params.a and params.b, and the backward gets the same. The second derivative, for
// create_graph, is in autograd/backward_ops.cc. brisk::<name>(x, numbers...) is generated
// (autograd/ops.h), and Tensor::<name>() and <name>_() for the rows without numbers; gelu's
// two rows are picked by a string, so gelu(x, approximate) is written in activations.cc.
// The rows with numbers end with two more columns: the function's number parameters, with
// PyTorch's defaults, and the same as the kernels' params.
#define BRISK_ACTIVATION_ROWS(Row, X)                                        \
  Row(X, Relu, relu, Relu, NumericTypes, SameNotBool, None, None, Output)    \
  Row(X, Sigmoid, sigmoid, Sigmoid, FloatingTypes, Float, None, None, Output) \
  Row(X, Tanh, tanh, Tanh, FloatingTypes, Float, None, None, Output)          \
  Row(X, Silu, silu, Silu, FloatingTypes, Floating, None, None, Input)        \
  Row(X, Hardswish, hardswish, Hardswish, FloatingTypes, Same, None, None, Input)
#define BRISK_ACTIVATION_ROWS_WITH_NUMBERS(Row, X)                                                 \
  /* x above zero, negative_slope * x otherwise */                                                \
  Row(X, LeakyRelu, leaky_relu, LeakyRelu, FloatingTypes, Same, None, None, Input,                 \
      (double negative_slope = 0.01), (negative_slope))                                            \
  /* x above zero, alpha * (exp(x) - 1) otherwise */                                               \
  Row(X, Elu, elu, Elu, FloatingTypes, Same, None, None, Input, (double alpha = 1.0), (alpha))     \
  /* log(1 + exp(beta * x)) / beta, and x where beta * x > threshold (beta must not be 0) */       \
  Row(X, Softplus, softplus, Softplus, FloatingTypes, Same, None, Float32, Input,                  \
      (double beta = 1.0, double threshold = 20.0), (beta, threshold))
#define BRISK_GELU_ROWS(Row, X)                                                \
  Row(X, Gelu, gelu, Gelu, FloatingTypes, Floating, None, None, Input)         \
  Row(X, GeluTanh, gelu, GeluTanh, FloatingTypes, Floating, None, None, Input)
#define BRISK_ROW_AS_IS(X, ...) X(__VA_ARGS__)
#define BRISK_ROW_UNPAREN(...) __VA_ARGS__
#define BRISK_ROW_BACKWARD(X, Op, name, Functor, ...) \
  X(Op##Backward, name##_backward, Functor##Backward, FloatingTypes, Same, None, None)
#define BRISK_ACTIVATION_OPS(X) BRISK_ACTIVATION_ROWS(BRISK_ROW_AS_IS, X)
#define BRISK_ACTIVATION_OPS_WITH_NUMBERS(X) BRISK_ACTIVATION_ROWS_WITH_NUMBERS(BRISK_ROW_AS_IS, X)
#define BRISK_ALL_ACTIVATION_OPS(X) \
  BRISK_ACTIVATION_OPS(X) BRISK_ACTIVATION_OPS_WITH_NUMBERS(X) BRISK_GELU_ROWS(BRISK_ROW_AS_IS, X)

// Comparisons and logical ops of two tensors: bool results, no gradient; brisk::<name>(a, b)
// and Tensor::<name>(other) are generated from this list.
#define BRISK_COMPARISON_OPS(X)                                  \
  X(Eq, eq, Eq, AllTypes, Bool, None, None)                      \
  X(Ne, ne, Ne, AllTypes, Bool, None, None)                      \
  X(Lt, lt, Lt, AllTypes, Bool, None, None)                      \
  X(Le, le, Le, AllTypes, Bool, None, None)                      \
  X(Gt, gt, Gt, AllTypes, Bool, None, None)                      \
  X(Ge, ge, Ge, AllTypes, Bool, None, None)                      \
  X(LogicalAnd, logical_and, LogicalAnd, AllTypes, Bool, None, None) \
  X(LogicalOr, logical_or, LogicalOr, AllTypes, Bool, None, None)

// The other one-input kernels; params.a and params.b are their numbers where they take any.
#define BRISK_UNARY_OTHER_OPS(X)                                                            \
  X(Neg, neg, Neg, NumericTypes, Negation, None, None)                                      \
  X(LogicalNot, logical_not, LogicalNot, AllTypes, Bool, None, None)                        \
  X(Clamp, clamp, Clamp, NumericTypes, NumberPromoted, None, None) /* min a, max b (±inf when absent) */ \
  X(RPowScalar, pow, RPowScalar, AllTypes, NumberPromoted, None, Float32) /* a ** x */

#define BRISK_UNARY_OPS(X) BRISK_UNARY_MATH_OPS(X) BRISK_ALL_ACTIVATION_OPS(X) BRISK_UNARY_OTHER_OPS(X)

#define BRISK_BINARY_OPS(X)                                                                      \
  X(Add, add, Add, AllTypes, Same, None, None)     /* a + params.a * b (alpha) */                \
  X(Sub, sub, Sub, NumericTypes, Same, None, None) /* a - params.a * b */                        \
  X(Mul, mul, Mul, AllTypes, Same, None, None)                                                   \
  X(Div, div, Div, FloatingTypes, Float, None, None)                                             \
  X(Pow, pow, Pow, AllTypes, Same, None, Float32)                                                \
  X(Maximum, maximum, Maximum, AllTypes, Same, None, None)                                       \
  X(Minimum, minimum, Minimum, AllTypes, Same, None, None)                                       \
  X(Lerp, lerp, Lerp, FloatingTypes, Same, None, None) /* a + params.a * (b - a), a number weight */ \
  X(Remainder, remainder, Remainder, NumericTypes, Same, None, None) /* with the sign of b, as Python's % */ \
  X(Fmod, fmod, Fmod, NumericTypes, Same, None, None)                /* with the sign of a, as C's fmod */ \
  X(AddRelu, add_relu, AddRelu, FloatingTypes, Same, None, None) /* relu(a + b) in one pass */           \
  BRISK_COMPARISON_OPS(X)                                                                        \
  BRISK_ALL_ACTIVATION_BACKWARD_OPS(X)
#define BRISK_ALL_ACTIVATION_BACKWARD_OPS(X)                                                \
  BRISK_ACTIVATION_ROWS(BRISK_ROW_BACKWARD, X) BRISK_ACTIVATION_ROWS_WITH_NUMBERS(BRISK_ROW_BACKWARD, X) \
  BRISK_GELU_ROWS(BRISK_ROW_BACKWARD, X)

// Three-input kernels computing in opmath; where(), which moves values without arithmetic, is
// the one ternary op outside the list (TernaryOp::Where).
#define BRISK_TERNARY_OPS(X)                                                                 \
  X(Clamp, clamp, ClampTensor, NumericTypes, Same, None, None)   /* min(max(x, lo), hi) */  \
  X(Addcmul, addcmul, Addcmul, NumericTypes, Same, None, Promote)  /* a + params.a * b * c */ \
  X(Addcdiv, addcdiv, Addcdiv, FloatingTypes, Same, None, Promote) /* a + params.a * b / c */
// clang-format on

// Reductions: X(Op, name). Their dtype rules and functors are in tensor/kernels/reduce_dispatch.h.
#define BRISK_REDUCE_OPS(X)                                    \
  X(Sum, sum)                                                  \
  X(Prod, prod)                                                \
  X(Max, amax) /* values and, when requested, int64 indices */ \
  X(Min, amin)                                                 \
  X(ArgMax, argmax) /* int64 indices only */                   \
  X(ArgMin, argmin)                                            \
  X(Mean, mean)                                                \
  X(Var, var) /* params.a = correction */                      \
  X(LogSumExp, logsumexp)                                      \
  X(Norm, norm) /* params.a = p */

// Random fills from the Philox stream: X(Op, name); draws in tensor/kernels/random_dispatch.h.
#define BRISK_RANDOM_OPS(X)                                  \
  X(Uniform, uniform_)     /* [params.a, params.b) */        \
  X(Normal, normal_)       /* mean params.a, std params.b */ \
  X(Bernoulli, bernoulli_) /* probability params.a */        \
  X(RandomInt, random_)    /* integers in [a, b) */
