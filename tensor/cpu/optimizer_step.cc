// The fused optimizer updates on the CPU: one pass over each parameter's elements.
#include <atomic>

#include "tensor/cpu/cpu_backend.h"
#include "tensor/cpu/data_or_null.h"
#include "tensor/dispatch.h"
#include "tensor/functors/optimizer_step.h"
#include "tensor/parallel.h"

namespace brisk::cpu {
namespace {

// Enough elements per thread that the threads' start-up cost is small against the memory
// traffic of 3 to 5 streams.
constexpr int64_t kOptimizerGrain = 16384;

}  // namespace

void CpuBackend::sgd_step(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                          const SgdStepParams& params) {
  dispatch(TypeList<float, double>{}, param.dtype(), "sgd_step", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const functors::SgdStep<T> step(params);
    T* p = param.data_ptr<T>();
    const T* g = grad.data_ptr<T>();
    T* buf = data_or_null<T>(momentum_buffer);
    parallel_for(0, param.numel(), kOptimizerGrain, [&](int64_t begin, int64_t end) {
      T unused = T(0);
      for (int64_t i = begin; i < end; ++i) step(p[i], g[i], buf ? buf[i] : unused);
    });
  });
}

void CpuBackend::adam_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                           const Tensor& max_exp_avg_sq, const AdamStepParams& params) {
  dispatch(TypeList<float, double>{}, param.dtype(), "adam_step", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const functors::AdamStep<T> step(params);
    T* p = param.data_ptr<T>();
    const T* g = grad.data_ptr<T>();
    T* m = exp_avg.data_ptr<T>();
    T* v = exp_avg_sq.data_ptr<T>();
    T* v_max = data_or_null<T>(max_exp_avg_sq);
    parallel_for(0, param.numel(), kOptimizerGrain, [&](int64_t begin, int64_t end) {
      T unused = T(0);
      for (int64_t i = begin; i < end; ++i) step(p[i], g[i], m[i], v[i], v_max ? v_max[i] : unused);
    });
  });
}

void CpuBackend::non_finite_check_and_unscale(const Tensor& grad, const Tensor& found_inf, float inv_scale) {
  dispatch(TypeList<float, double>{}, grad.dtype(), "non_finite_check_and_unscale", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const functors::Unscale<T> unscale{inv_scale};
    T* g = grad.data_ptr<T>();
    std::atomic<bool> non_finite{false};
    parallel_for(0, grad.numel(), kOptimizerGrain, [&](int64_t begin, int64_t end) {
      bool finite = true;
      for (int64_t i = begin; i < end; ++i) finite &= unscale(g[i]);
      if (!finite) non_finite.store(true, std::memory_order_relaxed);
    });
    if (non_finite.load()) *found_inf.data_ptr<float>() = 1.0f;
  });
}

// The multi-tensor updates: the per-tensor kernels one tensor after the other, each split
// over threads as above (a launch costs nothing on the CPU, so one call gains nothing more).
void CpuBackend::multi_tensor_sgd_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                                       const std::vector<Tensor>& momentum_buffers, const SgdStepParams& options) {
  for (size_t i = 0; i < params.size(); ++i) {
    sgd_step(params[i], grads[i], momentum_buffers.empty() ? Tensor() : momentum_buffers[i], options);
  }
}

void CpuBackend::multi_tensor_adam_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                                        const std::vector<Tensor>& exp_avgs, const std::vector<Tensor>& exp_avg_sqs,
                                        const std::vector<Tensor>& max_exp_avg_sqs, const AdamStepParams& options) {
  for (size_t i = 0; i < params.size(); ++i) {
    adam_step(params[i], grads[i], exp_avgs[i], exp_avg_sqs[i], max_exp_avg_sqs.empty() ? Tensor() : max_exp_avg_sqs[i],
              options);
  }
}

void CpuBackend::multi_tensor_non_finite_check_and_unscale(const std::vector<Tensor>& grads, const Tensor& found_inf,
                                                           float inv_scale) {
  for (const Tensor& grad : grads) non_finite_check_and_unscale(grad, found_inf, inv_scale);
}

}  // namespace brisk::cpu
