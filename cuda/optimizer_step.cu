// The fused optimizer updates on CUDA: one grid-stride kernel per parameter, or the
// multi-tensor kernels over lists of parameters (cuda/multi_tensor_apply.cu.h), both with the
// element math of tensor/functors/optimizer_step.h (the CPU backend runs the same functors).
#include "cuda/cuda_backend.h"
#include "cuda/launch.h"
#include "cuda/multi_tensor_apply.cu.h"
#include "tensor/dispatch.h"
#include "tensor/functors/optimizer_step.h"

namespace brisk::cuda {
namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void __launch_bounds__(kThreads)
    sgd_step_kernel(int64_t n, functors::SgdStep<T> step, T* param, const T* grad, T* buf) {
  T unused = T(0);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    step(param[i], grad[i], buf ? buf[i] : unused);
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) adam_step_kernel(int64_t n, functors::AdamStep<T> step, T* param,
                                                             const T* grad, T* exp_avg, T* exp_avg_sq, T* max_sq) {
  T unused = T(0);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    step(param[i], grad[i], exp_avg[i], exp_avg_sq[i], max_sq ? max_sq[i] : unused);
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    unscale_kernel(int64_t n, functors::Unscale<T> unscale, T* grad, float* found_inf) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    // Every thread that meets an inf or NaN writes the same 1: no atomics needed.
    if (!unscale(grad[i])) *found_inf = 1.0f;
  }
}

template <typename T>
T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

// The multi-tensor kernels' element ops (multi_tensor_apply's op): data holds the tensor's
// operands in the lists' order, null for a buffer the options do not use.
template <typename T>
struct SgdElement {
  functors::SgdStep<T> step;
  __device__ void operator()(void* const* data, int64_t i) const {
    T unused = T(0);
    T* buf = static_cast<T*>(data[2]);
    step(static_cast<T*>(data[0])[i], static_cast<const T*>(data[1])[i], buf ? buf[i] : unused);
  }
};

template <typename T>
struct AdamElement {
  functors::AdamStep<T> step;
  __device__ void operator()(void* const* data, int64_t i) const {
    T unused = T(0);
    T* max_sq = static_cast<T*>(data[4]);
    step(static_cast<T*>(data[0])[i], static_cast<const T*>(data[1])[i], static_cast<T*>(data[2])[i],
         static_cast<T*>(data[3])[i], max_sq ? max_sq[i] : unused);
  }
};

template <typename T>
struct UnscaleElement {
  functors::Unscale<T> unscale;
  float* found_inf;
  __device__ void operator()(void* const* data, int64_t i) const {
    if (!unscale(static_cast<T*>(data[0])[i])) *found_inf = 1.0f;  // the same 1 from every thread
  }
};

}  // namespace

void CudaBackend::sgd_step(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                           const SgdStepParams& params) {
  if (param.numel() == 0) return;
  LaunchScope scope(param.device());
  dispatch(TypeList<float, double>{}, param.dtype(), "sgd_step", [&](auto tag) {
    using T = typename decltype(tag)::type;
    unsigned blocks = grid_size(scope.device(), param.numel(), kThreads);
    sgd_step_kernel<T><<<blocks, kThreads, 0, scope.stream()>>>(param.numel(), functors::SgdStep<T>(params),
                                                                param.data_ptr<T>(), grad.data_ptr<T>(),
                                                                data_or_null<T>(momentum_buffer));
    BRISK_CUDA_CHECK_LAUNCH();
  });
}

void CudaBackend::adam_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                            const Tensor& max_exp_avg_sq, const AdamStepParams& params) {
  if (param.numel() == 0) return;
  LaunchScope scope(param.device());
  dispatch(TypeList<float, double>{}, param.dtype(), "adam_step", [&](auto tag) {
    using T = typename decltype(tag)::type;
    unsigned blocks = grid_size(scope.device(), param.numel(), kThreads);
    adam_step_kernel<T><<<blocks, kThreads, 0, scope.stream()>>>(
        param.numel(), functors::AdamStep<T>(params), param.data_ptr<T>(), grad.data_ptr<T>(), exp_avg.data_ptr<T>(),
        exp_avg_sq.data_ptr<T>(), data_or_null<T>(max_exp_avg_sq));
    BRISK_CUDA_CHECK_LAUNCH();
  });
}

void CudaBackend::non_finite_check_and_unscale(const Tensor& grad, const Tensor& found_inf, float inv_scale) {
  if (grad.numel() == 0) return;
  LaunchScope scope(grad.device());
  dispatch(TypeList<float, double>{}, grad.dtype(), "non_finite_check_and_unscale", [&](auto tag) {
    using T = typename decltype(tag)::type;
    unsigned blocks = grid_size(scope.device(), grad.numel(), kThreads);
    unscale_kernel<T><<<blocks, kThreads, 0, scope.stream()>>>(grad.numel(), functors::Unscale<T>{inv_scale},
                                                               grad.data_ptr<T>(), found_inf.data_ptr<float>());
    BRISK_CUDA_CHECK_LAUNCH();
  });
}

void CudaBackend::multi_tensor_sgd_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                                        const std::vector<Tensor>& momentum_buffers, const SgdStepParams& options) {
  LaunchScope scope(params.front().device());
  dispatch(TypeList<float, double>{}, params.front().dtype(), "multi_tensor_sgd_step", [&](auto tag) {
    using T = typename decltype(tag)::type;
    multi_tensor_apply<T, 3>({&params, &grads, &momentum_buffers}, SgdElement<T>{functors::SgdStep<T>(options)},
                             scope.stream());
  });
}

void CudaBackend::multi_tensor_adam_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                                         const std::vector<Tensor>& exp_avgs, const std::vector<Tensor>& exp_avg_sqs,
                                         const std::vector<Tensor>& max_exp_avg_sqs, const AdamStepParams& options) {
  LaunchScope scope(params.front().device());
  dispatch(TypeList<float, double>{}, params.front().dtype(), "multi_tensor_adam_step", [&](auto tag) {
    using T = typename decltype(tag)::type;
    multi_tensor_apply<T, 5>({&params, &grads, &exp_avgs, &exp_avg_sqs, &max_exp_avg_sqs},
                             AdamElement<T>{functors::AdamStep<T>(options)}, scope.stream());
  });
}

void CudaBackend::multi_tensor_non_finite_check_and_unscale(const std::vector<Tensor>& grads, const Tensor& found_inf,
                                                            float inv_scale) {
  LaunchScope scope(grads.front().device());
  dispatch(
      TypeList<float, double>{}, grads.front().dtype(), "multi_tensor_non_finite_check_and_unscale", [&](auto tag) {
        using T = typename decltype(tag)::type;
        multi_tensor_apply<T, 1>({&grads}, UnscaleElement<T>{{inv_scale}, found_inf.data_ptr<float>()}, scope.stream());
      });
}

}  // namespace brisk::cuda
