#pragma once
// Every elementwise, reduction and random kernel a Backend implements, listed once. The lists
// generate the op enums and names (tensor/op_kinds.h), the result-dtype rule of the native ops
// (tensor/native/elementwise.cc) and the dtype dispatch of every backend (tensor/kernels/), so
// a new elementwise op is one row here, one functor in tensor/functors/ and, if it is
// differentiable, its derivative in autograd/ (docs/extending.md has the checklist).
//
// Elementwise rows: X(Op, name, Functor, DTypes, Result)
//   name     PyTorch's name of the op: in error messages, and the C++ name where it has one;
//   Functor  the template in brisk::functors that computes the op in opmath_t<storage type>;
//   DTypes   the TypeList (tensor/dispatch.h) of storage dtypes the kernel accepts; any other
//            dtype is refused with an error naming the op and the dtypes it supports;
//   Result   the dtype the op computes and writes: Same (the input's, after promotion), Bool,
//            or Float (the input's if floating point, else float32: exp(int) is float32).
//            Bool rows must have functors returning bool; the kernels check it when compiled.

// Math functions of one tensor: brisk::<name>(x) and Tensor::<name>() are declared from this
// list (autograd/ops.h, tensor/tensor.h); each is defined, with its derivative, in
// autograd/unary.cc.
#define BRISK_UNARY_MATH_OPS(X)                               \
  X(Abs, abs, Abs, NumericTypes, Same)                        \
  X(Exp, exp, Exp, FloatingTypes, Float)                      \
  X(Log, log, Log, FloatingTypes, Float)                      \
  X(Sqrt, sqrt, Sqrt, FloatingTypes, Float)                   \
  X(Rsqrt, rsqrt, Rsqrt, FloatingTypes, Float)                \
  X(Square, square, Square, NumericTypes, Same)               \
  X(Reciprocal, reciprocal, Reciprocal, FloatingTypes, Float) \
  X(Sin, sin, Sin, FloatingTypes, Float)                      \
  X(Cos, cos, Cos, FloatingTypes, Float)                      \
  X(Sign, sign, Sign, AllTypes, Same)                         \
  X(Erf, erf, Erf, FloatingTypes, Float)

// The other one-input kernels; params.a and params.b are their numbers where they take any.
#define BRISK_UNARY_OTHER_OPS(X)                                                        \
  X(Neg, neg, Neg, NumericTypes, Same)                                                  \
  X(Relu, relu, Relu, NumericTypes, Same)                                               \
  X(Sigmoid, sigmoid, Sigmoid, FloatingTypes, Float)                                    \
  X(Tanh, tanh, Tanh, FloatingTypes, Float)                                             \
  X(Gelu, gelu, Gelu, FloatingTypes, Same)                                              \
  X(GeluTanh, gelu, GeluTanh, FloatingTypes, Same)                                      \
  X(Silu, silu, Silu, FloatingTypes, Same)                                              \
  X(LogicalNot, logical_not, LogicalNot, AllTypes, Bool)                                \
  X(Clamp, clamp, Clamp, NumericTypes, Same)     /* min a, max b (±inf when absent) */ \
  X(RPowScalar, pow, RPowScalar, AllTypes, Same) /* a ** x */                           \
  /* leaky_relu: negative_slope a; elu: alpha a; softplus: beta a, threshold b */       \
  X(LeakyRelu, leaky_relu, LeakyRelu, FloatingTypes, Same)                              \
  X(Elu, elu, Elu, FloatingTypes, Same)                                                 \
  X(Softplus, softplus, Softplus, FloatingTypes, Same)                                  \
  X(Hardswish, hardswish, Hardswish, FloatingTypes, Same)

#define BRISK_UNARY_OPS(X) BRISK_UNARY_MATH_OPS(X) BRISK_UNARY_OTHER_OPS(X)

#define BRISK_BINARY_OPS(X)                                                                       \
  X(Add, add, Add, AllTypes, Same)     /* a + params.a * b (alpha) */                             \
  X(Sub, sub, Sub, NumericTypes, Same) /* a - params.a * b */                                     \
  X(Mul, mul, Mul, AllTypes, Same)                                                                \
  X(Div, div, Div, FloatingTypes, Float)                                                          \
  X(Pow, pow, Pow, AllTypes, Same)                                                                \
  X(Maximum, maximum, Maximum, AllTypes, Same)                                                    \
  X(Minimum, minimum, Minimum, AllTypes, Same)                                                    \
  X(Lerp, lerp, Lerp, FloatingTypes, Same) /* a + params.a * (b - a), a number weight */          \
  X(Eq, eq, Eq, AllTypes, Bool)                                                                   \
  X(Ne, ne, Ne, AllTypes, Bool)                                                                   \
  X(Lt, lt, Lt, AllTypes, Bool)                                                                   \
  X(Le, le, Le, AllTypes, Bool)                                                                   \
  X(Gt, gt, Gt, AllTypes, Bool)                                                                   \
  X(Ge, ge, Ge, AllTypes, Bool)                                                                   \
  X(LogicalAnd, logical_and, LogicalAnd, AllTypes, Bool)                                          \
  X(LogicalOr, logical_or, LogicalOr, AllTypes, Bool)                                             \
  X(Remainder, remainder, Remainder, NumericTypes, Same) /* with the sign of b, as Python's % */  \
  X(Fmod, fmod, Fmod, NumericTypes, Same)                /* with the sign of a, as C's fmod */    \
  /* Fused backward kernels: (grad, saved) -> grad_input. */                                      \
  X(ReluBackward, relu_backward, ReluBackward, FloatingTypes, Same)          /* saved = input */  \
  X(SigmoidBackward, sigmoid_backward, SigmoidBackward, FloatingTypes, Same) /* saved = output */ \
  X(TanhBackward, tanh_backward, TanhBackward, FloatingTypes, Same)          /* saved = output */ \
  X(GeluBackward, gelu_backward, GeluBackward, FloatingTypes, Same)          /* saved = input */  \
  X(GeluTanhBackward, gelu_backward, GeluTanhBackward, FloatingTypes, Same)  /* saved = input */  \
  X(SiluBackward, silu_backward, SiluBackward, FloatingTypes, Same)          /* saved = input */  \
  /* The same with the forward's numbers in params (a: slope, alpha or beta; b: threshold). */    \
  X(LeakyReluBackward, leaky_relu_backward, LeakyReluBackward, FloatingTypes, Same) /* input */   \
  X(EluBackward, elu_backward, EluBackward, FloatingTypes, Same)                    /* input */   \
  X(SoftplusBackward, softplus_backward, SoftplusBackward, FloatingTypes, Same)     /* input */   \
  X(HardswishBackward, hardswish_backward, HardswishBackward, FloatingTypes, Same)  /* input */

// Three-input kernels computing in opmath; where(), which moves values without arithmetic, is
// the one ternary op outside the list (TernaryOp::Where).
#define BRISK_TERNARY_OPS(X)                                                   \
  X(Clamp, clamp, ClampTensor, NumericTypes, Same)  /* min(max(x, lo), hi) */  \
  X(Addcmul, addcmul, Addcmul, NumericTypes, Same)  /* a + params.a * b * c */ \
  X(Addcdiv, addcdiv, Addcdiv, FloatingTypes, Same) /* a + params.a * b / c */

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
