#pragma once
// Autocast's policy (docs/amp.md): which ops run in the lower precision, which in float32 and
// which in their widest input's dtype, on the CPU and on CUDA, as torch.autocast's lists. The
// elementwise ops' policy is in the CpuCast and CudaCast columns of their rows
// (tensor/op_table.h), the other ops' in the table below. The simulated device follows CUDA's.
#include "tensor/device.h"
#include "tensor/op_kinds.h"

namespace brisk::autograd {

// What autocast does to an op's floating point inputs on its device. float64 inputs and
// inputs on another device type are never cast, as PyTorch.
enum class CastPolicy {
  None,            // run as called: the op keeps its inputs' dtypes
  LowerPrecision,  // cast to the autocast dtype (bfloat16 or float16): GEMMs and convolutions
  Float32,         // cast to float32: ops whose range or accuracy suffers in 16 bits
  Promote,         // cast all to the widest of them (the autocast dtype, or float32 if any is wider)
};

// X(op, CPU policy, CUDA policy).
// clang-format off
#define BRISK_AUTOCAST_OPS(X)                                  \
  /* matrix products and convolutions */                       \
  X(matmul,           LowerPrecision, LowerPrecision)          \
  X(mm,               LowerPrecision, LowerPrecision)          \
  X(bmm,              LowerPrecision, LowerPrecision)          \
  X(addmm,            LowerPrecision, LowerPrecision)          \
  X(linear,           LowerPrecision, LowerPrecision)          \
  X(conv1d,           LowerPrecision, LowerPrecision)          \
  X(conv2d,           LowerPrecision, LowerPrecision)          \
  X(conv_transpose2d, LowerPrecision, LowerPrecision)          \
  /* losses */                                                 \
  X(mse_loss,         Float32,        Float32)                 \
  X(nll_loss,         Float32,        Float32)                 \
  X(cross_entropy,    Float32,        Float32)                 \
  /* reductions, softmax, norms */                             \
  X(prod,             Float32,        Float32)                 \
  X(sum,              None,           Float32)                 \
  X(softmax,          None,           Float32)                 \
  X(log_softmax,      None,           Float32)                 \
  X(logsumexp,        None,           Float32)                 \
  X(norm,             None,           Float32)                 \
  X(layer_norm,       None,           Float32)                 \
  X(group_norm,       None,           Float32)                 \
  /* resampling */                                             \
  X(interpolate,      None,           Float32)                 \
  /* ops mixing inputs */                                      \
  X(scatter_add,      None,           Promote)                 \
  X(cat,              Promote,        None)                    \
  X(stack,            Promote,        None)
// clang-format on

enum class AutocastOp {
#define BRISK_AUTOCAST_ENUM(op, cpu, cuda) op,
  BRISK_AUTOCAST_OPS(BRISK_AUTOCAST_ENUM)
#undef BRISK_AUTOCAST_ENUM
};

// An op's policy on the CPU and on CUDA.
struct AutocastPolicy {
  CastPolicy cpu = CastPolicy::None;
  CastPolicy cuda = CastPolicy::None;
  // The policy on devices of type `device` (CUDA's for the simulated device).
  CastPolicy on(DeviceType device) const { return device == DeviceType::CPU ? cpu : cuda; }
};

AutocastPolicy autocast_policy(AutocastOp op);
// The CpuCast and CudaCast columns of the op's row (x ** number: pow's).
AutocastPolicy autocast_policy(UnaryOp op);
AutocastPolicy autocast_policy(BinaryOp op);
AutocastPolicy autocast_policy(TernaryOp op);

}  // namespace brisk::autograd
