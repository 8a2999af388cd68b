#include "autograd/autocast_policy.h"

namespace brisk::autograd {

// clang-format off
#define BRISK_AUTOCAST_CASE(name, cpu_policy, cuda_policy) \
  case AutocastOp::name: return {CastPolicy::cpu_policy, CastPolicy::cuda_policy};
#define BRISK_ROW_POLICY_CASE(Op, name, Functor, DTypes, Result, CpuCast, CudaCast, ...) \
  case Kind::Op: return {CastPolicy::CpuCast, CastPolicy::CudaCast};
// clang-format on

AutocastPolicy autocast_policy(AutocastOp op) {
  switch (op) { BRISK_AUTOCAST_OPS(BRISK_AUTOCAST_CASE) }
  return {};
}

AutocastPolicy autocast_policy(UnaryOp op) {
  using Kind = UnaryOp;
  switch (op) {
    BRISK_UNARY_OPS(BRISK_ROW_POLICY_CASE)
    case UnaryOp::PowScalar: return autocast_policy(BinaryOp::Pow);
    case UnaryOp::Fill: return {};
  }
  return {};
}

AutocastPolicy autocast_policy(BinaryOp op) {
  using Kind = BinaryOp;
  switch (op) { BRISK_BINARY_OPS(BRISK_ROW_POLICY_CASE) }
  return {};
}

AutocastPolicy autocast_policy(TernaryOp op) {
  using Kind = TernaryOp;
  switch (op) {
    BRISK_TERNARY_OPS(BRISK_ROW_POLICY_CASE)
    case TernaryOp::Where: return {};
  }
  return {};
}

#undef BRISK_AUTOCAST_CASE
#undef BRISK_ROW_POLICY_CASE

}  // namespace brisk::autograd
