#pragma once
// The per-element math of batch_norm's fused activation (tensor/fused_activation.h), shared by
// the CPU and CUDA kernels. T is the data's storage type, P = opmath_t<T> the type of the
// arithmetic. The results equal the composed ops bit for bit: the affine output z is rounded
// to T before the activation reads it (the tensor relu/gelu would get), and the activation's
// gradient is rounded to T as relu_backward/gelu_backward would store it.
#include <cstdint>

#include "tensor/fused_activation.h"
#include "tensor/functors/binary.h"
#include "tensor/functors/cast.h"
#include "tensor/functors/unary.h"

namespace brisk::functors {

// z = x * scale + shift: channel c's saved statistics and affine parameters (each may be null:
// weight 1, bias 0) folded into one scale and shift, computed in double and rounded to P,
// the same in the forward and in the backward that recomputes z.
template <typename P>
struct BatchNormAffine {
  P scale, shift;
  BRISK_INLINE BatchNormAffine(P mean, P invstd, const P* weight, const P* bias, int64_t c) {
    const double s = static_cast<double>(invstd) * (weight != nullptr ? static_cast<double>(weight[c]) : 1.0);
    scale = static_cast<P>(s);
    shift = static_cast<P>((bias != nullptr ? static_cast<double>(bias[c]) : 0.0) - static_cast<double>(mean) * s);
  }
  BRISK_INLINE P at(P x) const { return x * scale + shift; }
};

// activation(z), rounded to T.
template <typename T>
BRISK_INLINE T batch_norm_activation(FusedActivation activation, opmath_t<T> z) {
  using P = opmath_t<T>;
  const P rounded = cast<P>(cast<T>(z));
  switch (activation) {
    case FusedActivation::Relu: return cast<T>(Relu<P>()(rounded));
    case FusedActivation::Gelu: return cast<T>(Gelu<P>()(rounded));
    default: return cast<T>(rounded);
  }
}

// The gradient of z given the gradient g of activation(z): Relu's from the saved output
// `out`, Gelu's from z (recomputed by the caller as the forward computed it).
template <typename T>
BRISK_INLINE opmath_t<T> batch_norm_activation_grad(FusedActivation activation, opmath_t<T> g, T out,
                                                    opmath_t<T> z) {
  using P = opmath_t<T>;
  switch (activation) {
    case FusedActivation::Relu: return ReluBackward<P>()(g, cast<P>(out));
    case FusedActivation::Gelu: return cast<P>(cast<T>(GeluBackward<P>()(g, cast<P>(cast<T>(z)))));
    default: return g;
  }
}

}  // namespace brisk::functors
