#include "tensor/op_kinds.h"

namespace brisk {

// clang-format off
// (clang-format 14 misreads a macro ending in `#name;` and joins the next #define into it.)
#define BRISK_NAME_CASE(Op, name, ...) case Kind::Op: return #name;
#define BRISK_SHORT_NAME_CASE(Op, name) case Kind::Op: return #name;
#define BRISK_RESULT_CASE(Op, name, Functor, DTypes, Result, ...) case Kind::Op: return ResultKind::Result;
// clang-format on

const char* op_name(UnaryOp op) {
  using Kind = UnaryOp;
  switch (op) {
    BRISK_UNARY_OPS(BRISK_NAME_CASE)
    case UnaryOp::PowScalar: return "pow";
    case UnaryOp::Fill: return "fill_";
  }
  return "?";
}

const char* op_name(BinaryOp op) {
  using Kind = BinaryOp;
  switch (op) { BRISK_BINARY_OPS(BRISK_NAME_CASE) }
  return "?";
}

const char* op_name(TernaryOp op) {
  using Kind = TernaryOp;
  switch (op) {
    BRISK_TERNARY_OPS(BRISK_NAME_CASE)
    case TernaryOp::Where: return "where";
  }
  return "?";
}

const char* op_name(ReduceOp op) {
  using Kind = ReduceOp;
  switch (op) { BRISK_REDUCE_OPS(BRISK_SHORT_NAME_CASE) }
  return "?";
}

const char* op_name(RandomOp op) {
  using Kind = RandomOp;
  switch (op) { BRISK_RANDOM_OPS(BRISK_SHORT_NAME_CASE) }
  return "?";
}

ResultKind result_kind(UnaryOp op) {
  using Kind = UnaryOp;
  switch (op) {
    BRISK_UNARY_OPS(BRISK_RESULT_CASE)
    case UnaryOp::PowScalar: return ResultKind::NumberPromoted;
    case UnaryOp::Fill: return ResultKind::Same;
  }
  return ResultKind::Same;
}

ResultKind result_kind(BinaryOp op) {
  using Kind = BinaryOp;
  switch (op) { BRISK_BINARY_OPS(BRISK_RESULT_CASE) }
  return ResultKind::Same;
}

#undef BRISK_NAME_CASE
#undef BRISK_SHORT_NAME_CASE
#undef BRISK_RESULT_CASE

}  // namespace brisk
