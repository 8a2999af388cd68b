#include <initializer_list>
#include <utility>

#include "tensor/backend.h"
#include "tensor/error.h"
#include "tensor/native/ops.h"

namespace brisk::native {
namespace {

// Every defined operand has param's shape, dtype and device.
void check_operands(const char* op, const Tensor& param,
                    std::initializer_list<std::pair<const char*, const Tensor*>> others) {
  BRISK_CHECK(param.dtype() == kFloat32 || param.dtype() == kFloat64,
              "{}: parameters must be float32 or float64, got {} (shape {})", op, param.dtype(), param.sizes());
  for (const auto& [name, t] : others) {
    if (!t->defined()) continue;
    BRISK_CHECK(t->sizes() == param.sizes() && t->dtype() == param.dtype() && t->device() == param.device(),
                "{}: {} (shape {}, {}, {}) does not match the parameter (shape {}, {}, {})", op, name, t->sizes(),
                t->dtype(), t->device(), param.sizes(), param.dtype(), param.device());
  }
}

// The kernels take contiguous memory: a strided operand is updated through a contiguous
// copy that is written back afterwards.
struct ContiguousOperand {
  explicit ContiguousOperand(const Tensor& t)
      : original(t), copied(t.defined() && !t.is_contiguous()), work(copied ? contiguous(t) : t) {}
  // Copies a strided operand's result back; marks the tensor modified, so autograd refuses a
  // backward through a graph that saved it before the step.
  void write_back() {
    if (!original.defined()) return;
    if (copied) copy_(original, work);
    original.bump_version();
  }
  Tensor original;
  bool copied;
  Tensor work;
};

}  // namespace

void sgd_step_(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer, const SgdStepParams& params) {
  check_operands("sgd_step", param, {{"grad", &grad}, {"momentum_buffer", &momentum_buffer}});
  BRISK_CHECK(grad.defined(), "sgd_step: the parameter (shape {}) has no gradient", param.sizes());
  BRISK_CHECK(params.momentum == 0.0 || momentum_buffer.defined(), "sgd_step: momentum {} needs a momentum buffer",
              params.momentum);
  ContiguousOperand p(param), buf(momentum_buffer);
  backend_for(param.device()).sgd_step(p.work, contiguous(grad), buf.work, params);
  for (ContiguousOperand* operand : {&p, &buf}) operand->write_back();
}

void adam_step_(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                const Tensor& max_exp_avg_sq, const AdamStepParams& params) {
  check_operands(
      "adam_step", param,
      {{"grad", &grad}, {"exp_avg", &exp_avg}, {"exp_avg_sq", &exp_avg_sq}, {"max_exp_avg_sq", &max_exp_avg_sq}});
  BRISK_CHECK(grad.defined() && exp_avg.defined() && exp_avg_sq.defined(),
              "adam_step: the parameter (shape {}) needs a gradient, exp_avg and exp_avg_sq", param.sizes());
  BRISK_CHECK(!params.amsgrad || max_exp_avg_sq.defined(), "adam_step: amsgrad needs max_exp_avg_sq");
  ContiguousOperand p(param), m(exp_avg), v(exp_avg_sq), v_max(max_exp_avg_sq);
  backend_for(param.device()).adam_step(p.work, contiguous(grad), m.work, v.work, v_max.work, params);
  for (ContiguousOperand* operand : {&p, &m, &v, &v_max}) operand->write_back();
}

void non_finite_check_and_unscale_(const Tensor& grad, const Tensor& found_inf, float inv_scale) {
  BRISK_CHECK(grad.dtype() == kFloat32 || grad.dtype() == kFloat64,
              "unscale: gradients must be float32 or float64 (keep the parameters in float32 under autocast), got a "
              "{} gradient of shape {}",
              grad.dtype(), grad.sizes());
  BRISK_CHECK(found_inf.dtype() == kFloat32 && found_inf.numel() == 1 && found_inf.device() == grad.device(),
              "unscale: found_inf {} must be one float32 element on the gradient's device {}", found_inf.describe(),
              grad.device());
  ContiguousOperand g(grad);
  backend_for(grad.device()).non_finite_check_and_unscale(g.work, found_inf, inv_scale);
  g.write_back();
}

}  // namespace brisk::native
