// CudaBackend::nll_loss and nll_loss_backward, with the target rules of
// tensor/functors/nll_loss.h (the CPU backend applies the same).
//
// The forward is one block: its threads stride over the targets, then one block reduction
// gives the sum, the total weight and the bad targets' count and first element, which thread
// 0 writes, the target record included, with no atomics and no second kernel (PyTorch's
// nll_loss_forward_reduce_cuda_kernel_2d is one block too). A per-element loss over a very
// large target (segmentation maps of millions of positions) would want more blocks; training
// losses are [N] or a few hundred thousand positions.
// The backward writes every element of grad_input once, zeros included: one grid-stride pass.
#include <cstdint>
#include <limits>
#include <type_traits>

#include "cuda/block_reduce.cu.h"
#include "cuda/cuda_backend.h"
#include "cuda/launch.h"
#include "tensor/dispatch.h"
#include "tensor/functors/cast.h"
#include "tensor/functors/nll_loss.h"
#include "tensor/kernels/reduce_dispatch.h"

namespace brisk::cuda {
namespace {

constexpr int kForwardThreads = 512;
constexpr int kBackwardThreads = 256;

// Sums accumulate as the CUDA reductions do (float32 in float32).
template <typename T>
using sum_t = kernels::accumulate_t<T, false>;

// total_weight's C++ type for an input of T (Backend::nll_loss).
template <typename T>
using total_weight_t = std::conditional_t<is_reduced_float_v<T>, float, T>;

// One thread's share of the forward: loss and weight sums, bad targets and the first of them.
template <typename A>
struct NllPartial {
  A sum;
  A weights;
  int64_t bad;
  int64_t first;  // the smallest bad element (int64 max when none)
};

template <typename A>
struct CombineNllPartials {
  __device__ NllPartial<A> operator()(const NllPartial<A>& a, const NllPartial<A>& b) const {
    return {a.sum + b.sum, a.weights + b.weights, a.bad + b.bad, a.first < b.first ? a.first : b.first};
  }
};

// x [N, C, S], t [N, S], w [C] or null, out [N, S] (None) or [], record int64 [4] or null.
template <typename T>
__global__ void __launch_bounds__(kForwardThreads)
    nll_loss_kernel(int64_t batch, int64_t classes, int64_t inner, const T* x, const int64_t* t, const T* w, T* out,
                    total_weight_t<T>* total_weight, int64_t* record, NllLossParams params) {
  using A = sum_t<T>;
  const bool per_element = params.reduction == LossReduction::None;
  NllPartial<A> p{A(0), A(0), 0, std::numeric_limits<int64_t>::max()};
  for (int64_t i = threadIdx.x; i < batch * inner; i += blockDim.x) {
    const int64_t c = t[i];
    if (!functors::is_counted_target(c, classes, params.ignore_index)) {
      if (functors::is_bad_target(c, classes, params.ignore_index)) {
        ++p.bad;
        if (i < p.first) p.first = i;
      }
      if (per_element) out[i] = T(0);
      continue;
    }
    const int64_t n = i / inner, s = i - n * inner;
    const A wc = w != nullptr ? cast<A>(w[c]) : A(1);
    const A loss = -wc * cast<A>(x[(n * classes + c) * inner + s]);
    p.weights += wc;
    if (per_element) {
      out[i] = cast<T>(loss);
    } else {
      p.sum += loss;
    }
  }
  __shared__ NllPartial<A> shared[kForwardThreads / kWarpSize];
  p = group_reduce_x(p, CombineNllPartials<A>{}, shared);
  if (threadIdx.x != 0) return;
  if (!per_element) *out = cast<T>(params.reduction == LossReduction::Mean ? p.sum / p.weights : p.sum);
  *total_weight = cast<total_weight_t<T>>(p.weights);
  if (record != nullptr) functors::fold_bad_targets(record, p.bad, params.call, p.first, p.bad > 0 ? t[p.first] : 0);
}

// grad_input [N, C, S], grad_out [N, S] (None) or [], t [N, S], w [C] or null.
template <typename T>
__global__ void __launch_bounds__(kBackwardThreads)
    nll_loss_backward_kernel(int64_t batch, int64_t classes, int64_t inner, T* grad_input, const T* grad_out,
                             const int64_t* t, const T* w, const total_weight_t<T>* total_weight,
                             NllLossParams params) {
  using A = sum_t<T>;
  const bool per_element = params.reduction == LossReduction::None;
  A scale = per_element ? A(0) : cast<A>(*grad_out);
  if (params.reduction == LossReduction::Mean) scale /= cast<A>(*total_weight);
  const int64_t total = batch * classes * inner;
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < total; k += int64_t(gridDim.x) * blockDim.x) {
    const int64_t s = k % inner, nc = k / inner, c = nc % classes, n = nc / classes;
    const int64_t i = n * inner + s;
    T value = T(0);
    if (t[i] == c && functors::is_counted_target(c, classes, params.ignore_index)) {
      const A wc = w != nullptr ? cast<A>(w[c]) : A(1);
      value = cast<T>(-wc * (per_element ? cast<A>(grad_out[i]) : scale));
    }
    grad_input[k] = value;
  }
}

template <typename T>
const T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

}  // namespace

void CudaBackend::nll_loss(const Tensor& out, const Tensor& total_weight, const Tensor& target_record,
                           const Tensor& input, const Tensor& target, const Tensor& weight,
                           const NllLossParams& params) {
  check_contiguous("nll_loss", {&out, &target_record, &input, &target, &weight});
  LaunchScope scope(input.device());
  dispatch_floating(input.dtype(), "nll_loss", [&](auto tag) {
    using T = typename decltype(tag)::type;
    nll_loss_kernel<T><<<1, kForwardThreads, 0, scope.stream()>>>(
        input.size(0), input.size(1), input.size(2), input.data_ptr<T>(), target.data_ptr<int64_t>(),
        data_or_null<T>(weight), out.data_ptr<T>(), total_weight.template data_ptr<total_weight_t<T>>(),
        target_record.defined() ? target_record.data_ptr<int64_t>() : nullptr, params);
    BRISK_CUDA_CHECK_LAUNCH();
  });
}

void CudaBackend::nll_loss_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& target,
                                    const Tensor& weight, const Tensor& total_weight, const NllLossParams& params) {
  check_contiguous("nll_loss_backward", {&grad_input, &grad_out, &target, &weight});
  if (grad_input.numel() == 0) return;
  LaunchScope scope(grad_input.device());
  dispatch_floating(grad_input.dtype(), "nll_loss_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    unsigned blocks = grid_size(scope.device(), grad_input.numel(), kBackwardThreads);
    nll_loss_backward_kernel<T><<<blocks, kBackwardThreads, 0, scope.stream()>>>(
        grad_input.size(0), grad_input.size(1), grad_input.size(2), grad_input.data_ptr<T>(), grad_out.data_ptr<T>(),
        target.data_ptr<int64_t>(), data_or_null<T>(weight), total_weight.template data_ptr<total_weight_t<T>>(),
        params);
    BRISK_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace brisk::cuda
