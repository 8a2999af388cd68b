#pragma once
// Names of the elementwise, reduction and random kernels a Backend implements, generated from
// the lists of tensor/op_table.h. The math of each lives once, as a functor in
// tensor/functors/, shared by the CPU and CUDA backends through tensor/kernels/.
#include <cstdint>

#include "tensor/op_table.h"

namespace brisk {

#define BRISK_OP_ENUMERATOR(Op, ...) Op,

enum class UnaryOp : uint8_t {
  PowScalar,  // x ** params.a, with fast paths for the common exponents (tensor/kernels/)
  Fill,       // params.a, ignoring the input (the kernel's only operand is the output)
  BRISK_UNARY_OPS(BRISK_OP_ENUMERATOR)
};

enum class BinaryOp : uint8_t { BRISK_BINARY_OPS(BRISK_OP_ENUMERATOR) };

enum class TernaryOp : uint8_t {
  Where,  // cond ? a : b, cond is bool
  BRISK_TERNARY_OPS(BRISK_OP_ENUMERATOR)
};

enum class ReduceOp : uint8_t { BRISK_REDUCE_OPS(BRISK_OP_ENUMERATOR) };

enum class RandomOp : uint8_t { BRISK_RANDOM_OPS(BRISK_OP_ENUMERATOR) };

#undef BRISK_OP_ENUMERATOR

// The dtype an elementwise op computes in and writes, from its (promoted) input dtype, and the
// inputs it refuses: the Result column of tensor/op_table.h.
enum class ResultKind : uint8_t {
  Same,            // the input's
  Bool,            // bool (comparisons, logical ops)
  Float,           // the input's if floating point, else float32
  SameNotBool,     // the input's; bool refused
  Negation,        // the input's; bool refused, pointing to logical_not() (neg, as PyTorch)
  Floating,        // the input's; anything but floating point refused
  BoolAsInt64,     // the input's, int64 for bool (square)
  NumberPromoted,  // result_type(x, number): params.a and params.b are the op's numbers, a
                   // whole one counting as an int, another as a float (clamp, x ** a, a ** x)
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
const char* op_name(RandomOp op);

ResultKind result_kind(UnaryOp op);
ResultKind result_kind(BinaryOp op);

}  // namespace brisk
