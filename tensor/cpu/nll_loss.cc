// CpuBackend::nll_loss and nll_loss_backward: one pass over the targets forward, one over the
// gradient of the input backward. Sums accumulate as the CPU's reductions do (float32 in
// float64, tensor/kernels/reduce_dispatch.h), in the targets' order, so a loss does not
// depend on the thread count.
#include <algorithm>
#include <type_traits>

#include "tensor/cpu/cpu_backend.h"
#include "tensor/cpu/data_or_null.h"
#include "tensor/dispatch.h"
#include "tensor/functors/cast.h"
#include "tensor/functors/nll_loss.h"
#include "tensor/kernels/reduce_dispatch.h"
#include "tensor/parallel.h"

namespace brisk::cpu {
namespace {

// Elements of the gradient per thread: enough that a thread's start-up is small against
// writing them.
constexpr int64_t kNllBackwardGrain = 32768;

// total_weight's C++ type for an input of T.
template <typename T>
using total_weight_t = std::conditional_t<is_reduced_float_v<T>, float, T>;

}  // namespace

void CpuBackend::nll_loss(const Tensor& out, const Tensor& total_weight, const Tensor& target_record,
                          const Tensor& input, const Tensor& target, const Tensor& weight,
                          const NllLossParams& params) {
  const int64_t batch = input.size(0), classes = input.size(1), inner = input.size(2);
  dispatch_floating(input.dtype(), "nll_loss", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = kernels::accumulate_t<T, true>;
    const T* x = input.data_ptr<T>();               // [N, C, S]
    const int64_t* t = target.data_ptr<int64_t>();  // [N, S]
    const T* w = data_or_null<T>(weight);           // [C]
    T* o = out.data_ptr<T>();                       // [N, S] or []
    const bool per_element = params.reduction == LossReduction::None;
    A sum = A(0), weights = A(0);
    int64_t bad = 0, first_bad = 0;
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t s = 0; s < inner; ++s) {
        const int64_t i = n * inner + s, c = t[i];
        if (!functors::is_counted_target(c, classes, params.ignore_index)) {
          if (functors::is_bad_target(c, classes, params.ignore_index) && bad++ == 0) first_bad = i;
          if (per_element) o[i] = T(0);
          continue;
        }
        const A wc = w != nullptr ? cast<A>(w[c]) : A(1);
        const A loss = -wc * cast<A>(x[(n * classes + c) * inner + s]);
        weights += wc;
        if (per_element) {
          o[i] = cast<T>(loss);
        } else {
          sum += loss;
        }
      }
    }
    if (!per_element) *o = cast<T>(params.reduction == LossReduction::Mean ? sum / weights : sum);
    *total_weight.template data_ptr<total_weight_t<T>>() = cast<total_weight_t<T>>(weights);
    if (target_record.defined()) {
      functors::fold_bad_targets(target_record.data_ptr<int64_t>(), bad, params.call, first_bad,
                                 bad > 0 ? t[first_bad] : 0);
    }
  });
}

void CpuBackend::nll_loss_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& target,
                                   const Tensor& weight, const Tensor& total_weight, const NllLossParams& params) {
  const int64_t batch = grad_input.size(0), classes = grad_input.size(1), inner = grad_input.size(2);
  dispatch_floating(grad_input.dtype(), "nll_loss_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = kernels::accumulate_t<T, true>;
    T* gi = grad_input.data_ptr<T>();               // [N, C, S]
    const T* g = grad_out.data_ptr<T>();            // [N, S] or []
    const int64_t* t = target.data_ptr<int64_t>();  // [N, S]
    const T* w = data_or_null<T>(weight);           // [C]
    const bool per_element = params.reduction == LossReduction::None;
    A scale = per_element ? A(0) : cast<A>(*g);
    if (params.reduction == LossReduction::Mean) {
      scale /= cast<A>(*total_weight.template data_ptr<total_weight_t<T>>());
    }
    const int64_t row = classes * inner;
    parallel_for(0, batch, std::max<int64_t>(1, kNllBackwardGrain / std::max<int64_t>(row, 1)),
                 [&](int64_t begin, int64_t end) {
                   std::fill(gi + begin * row, gi + end * row, T(0));
                   for (int64_t n = begin; n < end; ++n) {
                     for (int64_t s = 0; s < inner; ++s) {
                       const int64_t i = n * inner + s, c = t[i];
                       if (!functors::is_counted_target(c, classes, params.ignore_index)) continue;
                       const A wc = w != nullptr ? cast<A>(w[c]) : A(1);
                       const A grad = per_element ? cast<A>(g[i]) : scale;
                       gi[(n * classes + c) * inner + s] = cast<T>(-wc * grad);
                     }
                   }
                 });
  });
}

}  // namespace brisk::cpu
