#pragma once
// One element of the fused optimizer updates, shared by the CPU and CUDA backends. Each
// update is the sequence of elementwise ops of PyTorch's single-tensor SGD and Adam, built
// from the same functors the unfused ops use, so a fused step computes what the op-by-op one
// does (up to where the compiler contracts a multiply-add into an FMA) in one pass over
// memory instead of six to ten.
#include "tensor/functors/binary.h"
#include "tensor/functors/ternary.h"
#include "tensor/functors/unary.h"
#include "tensor/macros.h"
#include "tensor/optimizer_step_params.h"

namespace brisk::functors {

// param -= lr * (momentum buffer or gradient); see optim/sgd.h.
template <typename T>
struct SgdStep {
  explicit SgdStep(const SgdStepParams& p)
      : decay(OpParams{p.weight_decay}),
        dampen(OpParams{1.0 - p.dampening}),
        look_ahead(OpParams{p.momentum}),
        descend(OpParams{-p.lr}),
        momentum(static_cast<T>(p.momentum)),
        use_decay(p.weight_decay != 0.0),
        use_momentum(p.momentum != 0.0),
        nesterov(p.nesterov),
        maximize(p.maximize),
        first_step(p.first_step) {}

  // buf is read and written only when use_momentum.
  BRISK_INLINE void operator()(T& param, T grad, T& buf) const {
    T g = maximize ? -grad : grad;
    if (use_decay) g = decay(g, param);
    if (use_momentum) {
      buf = first_step ? g : dampen(keep(buf, momentum), g);
      g = nesterov ? look_ahead(g, buf) : buf;
    }
    param = descend(param, g);
  }

  Add<T> decay;
  Mul<T> keep;
  Add<T> dampen;
  Add<T> look_ahead;
  Add<T> descend;
  T momentum;
  bool use_decay, use_momentum, nesterov, maximize, first_step;
};

// One Adam/AdamW step; see optim/adam.h. max_sq is read and written only with amsgrad.
template <typename T>
struct AdamStep {
  explicit AdamStep(const AdamStepParams& p)
      : shrink(static_cast<T>(1.0 - p.lr * p.weight_decay)),
        decay(OpParams{p.weight_decay}),
        first_moment(OpParams{1.0 - p.beta1}),
        second_moment(OpParams{1.0 - p.beta2}),
        descend(OpParams{-p.step_size}),
        one(OpParams{1.0}),
        beta2(static_cast<T>(p.beta2)),
        bias_correction2_sqrt(static_cast<T>(p.bias_correction2_sqrt)),
        eps(static_cast<T>(p.eps)),
        decoupled(p.weight_decay != 0.0 && p.decoupled_weight_decay),
        coupled(p.weight_decay != 0.0 && !p.decoupled_weight_decay),
        amsgrad(p.amsgrad),
        maximize(p.maximize) {}

  BRISK_INLINE void operator()(T& param, T grad, T& exp_avg, T& exp_avg_sq, T& max_sq) const {
    T g = maximize ? -grad : grad;
    if (decoupled) param = mul(param, shrink);
    if (coupled) g = decay(g, param);
    exp_avg = first_moment(exp_avg, g);
    exp_avg_sq = second_moment(mul(exp_avg_sq, beta2), g, g);
    T second = exp_avg_sq;
    if (amsgrad) {
      max_sq = maximum(max_sq, exp_avg_sq);
      second = max_sq;
    }
    T denom = one(div(sqrt(second), bias_correction2_sqrt), eps);
    param = descend(param, exp_avg, denom);
  }

  T shrink;
  Add<T> decay;
  Lerp<T> first_moment;
  Addcmul<T> second_moment;
  Addcdiv<T> descend;
  Add<T> one;
  Mul<T> mul;
  Div<T> div;
  Sqrt<T> sqrt;
  Maximum<T> maximum;
  T beta2, bias_correction2_sqrt, eps;
  bool decoupled, coupled, amsgrad, maximize;
};

// One element of GradScaler's unscale_ (PyTorch's _amp_foreach_non_finite_check_and_unscale_):
// whether the scaled gradient is finite, then the gradient times inv_scale (left as is when
// inv_scale is 1). inv_scale is float32, as PyTorch's.
template <typename T>
struct Unscale {
  BRISK_INLINE bool operator()(T& grad) const {
    const bool finite = grad - grad == T(0);  // false for inf (inf - inf is NaN) and NaN
    if (inv_scale != 1.0f) grad = grad * static_cast<T>(inv_scale);
    return finite;
  }
  float inv_scale;
};

}  // namespace brisk::functors
