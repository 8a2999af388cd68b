#pragma once
// The per-element math of batch_norm's fused activation (tensor/fused_activation.h), shared by
// the CPU and CUDA kernels. T is the data's storage type, P = opmath_t<T> the type of the
// arithmetic. The results equal the composed ops bit for bit: the affine output z is rounded
// to T before the activation reads it (the tensor relu/gelu would get), and the activation's
// gradient is rounded to T as relu_backward/gelu_backward would store it.
#include <cstdint>
#include <type_traits>

#include "tensor/functors/binary.h"
#include "tensor/functors/cast.h"
#include "tensor/functors/unary.h"
#include "tensor/fused_activation.h"

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

// activation(z), rounded to T; the activation a compile-time constant, so that loops over
// elements specialize (with_activation below picks it).
template <FusedActivation kActivation, typename T>
BRISK_INLINE T batch_norm_activation(opmath_t<T> z) {
  using P = opmath_t<T>;
  const P rounded = cast<P>(cast<T>(z));
  if constexpr (kActivation == FusedActivation::Relu) return cast<T>(Relu<P>()(rounded));
  if constexpr (kActivation == FusedActivation::Gelu) return cast<T>(Gelu<P>()(rounded));
  return cast<T>(rounded);
}

// The gradient of z given the gradient g of activation(z): Relu's from the saved output
// `out`, Gelu's from z (recomputed by the caller as the forward computed it).
template <FusedActivation kActivation, typename T>
BRISK_INLINE opmath_t<T> batch_norm_activation_grad(opmath_t<T> g, T out, opmath_t<T> z) {
  using P = opmath_t<T>;
  if constexpr (kActivation == FusedActivation::Relu) return ReluBackward<P>()(g, cast<P>(out));
  if constexpr (kActivation == FusedActivation::Gelu) return cast<P>(cast<T>(GeluBackward<P>()(g, cast<P>(cast<T>(z)))));
  return g;
}

// The same with the activation chosen at run time, per element (the CUDA kernels: a uniform
// branch).
template <typename T>
BRISK_INLINE T batch_norm_activation(FusedActivation activation, opmath_t<T> z) {
  switch (activation) {
    case FusedActivation::Relu: return batch_norm_activation<FusedActivation::Relu, T>(z);
    case FusedActivation::Gelu: return batch_norm_activation<FusedActivation::Gelu, T>(z);
    default: return batch_norm_activation<FusedActivation::None, T>(z);
  }
}

template <typename T>
BRISK_INLINE opmath_t<T> batch_norm_activation_grad(FusedActivation activation, opmath_t<T> g, T out, opmath_t<T> z) {
  switch (activation) {
    case FusedActivation::Relu: return batch_norm_activation_grad<FusedActivation::Relu, T>(g, out, z);
    case FusedActivation::Gelu: return batch_norm_activation_grad<FusedActivation::Gelu, T>(g, out, z);
    default: return batch_norm_activation_grad<FusedActivation::None, T>(g, out, z);
  }
}

// f(std::integral_constant<FusedActivation, activation>{}): the activation as a constant
// for a loop's body (the CPU kernels).
template <typename F>
decltype(auto) with_activation(FusedActivation activation, const F& f) {
  switch (activation) {
    case FusedActivation::Relu: return f(std::integral_constant<FusedActivation, FusedActivation::Relu>{});
    case FusedActivation::Gelu: return f(std::integral_constant<FusedActivation, FusedActivation::Gelu>{});
    default: return f(std::integral_constant<FusedActivation, FusedActivation::None>{});
  }
}

}  // namespace brisk::functors
