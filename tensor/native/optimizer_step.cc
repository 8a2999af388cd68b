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

// The strides every operand of an update is walked in: the parameter's when it is dense (a
// channels_last weight, whose .grad and optimizer state share its layout, is updated in
// place), else contiguous ones.
Shape update_strides(const Tensor& param) {
  return is_non_overlapping_and_dense(param.sizes(), param.strides()) ? param.strides()
                                                                      : contiguous_strides(param.sizes());
}

// Whether `t` is dense with `strides` (those of size-1 dims do not matter).
bool has_strides(const Tensor& t, const Shape& strides) {
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) != 1 && t.stride(d) != strides[d]) return false;
  }
  return true;
}

// `t` itself when it has `strides`, else a copy that has them.
Tensor with_strides(const Tensor& t, const Shape& strides) {
  if (has_strides(t, strides)) return t;
  Tensor copy = empty_strided(t.sizes(), strides, t.options());
  return copy_(copy, t);
}

// The kernels walk their operands' memory as one flat array, so each operand must be laid
// out as the others (update_strides): one that is not is updated through a copy that is
// written back afterwards.
struct UpdatedOperand {
  UpdatedOperand(const Tensor& t, const Shape& strides)
      : original(t), copied(t.defined() && !has_strides(t, strides)), work(copied ? with_strides(t, strides) : t) {}
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
  const Shape strides = update_strides(param);
  UpdatedOperand p(param, strides), buf(momentum_buffer, strides);
  backend_for(param.device()).sgd_step(p.work, with_strides(grad, strides), buf.work, params);
  for (UpdatedOperand* operand : {&p, &buf}) operand->write_back();
}

void adam_step_(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                const Tensor& max_exp_avg_sq, const AdamStepParams& params) {
  check_operands(
      "adam_step", param,
      {{"grad", &grad}, {"exp_avg", &exp_avg}, {"exp_avg_sq", &exp_avg_sq}, {"max_exp_avg_sq", &max_exp_avg_sq}});
  BRISK_CHECK(grad.defined() && exp_avg.defined() && exp_avg_sq.defined(),
              "adam_step: the parameter (shape {}) needs a gradient, exp_avg and exp_avg_sq", param.sizes());
  BRISK_CHECK(!params.amsgrad || max_exp_avg_sq.defined(), "adam_step: amsgrad needs max_exp_avg_sq");
  const Shape strides = update_strides(param);
  UpdatedOperand p(param, strides), m(exp_avg, strides), v(exp_avg_sq, strides), v_max(max_exp_avg_sq, strides);
  backend_for(param.device()).adam_step(p.work, with_strides(grad, strides), m.work, v.work, v_max.work, params);
  for (UpdatedOperand* operand : {&p, &m, &v, &v_max}) operand->write_back();
}

void non_finite_check_and_unscale_(const Tensor& grad, const Tensor& found_inf, float inv_scale) {
  BRISK_CHECK(grad.dtype() == kFloat32 || grad.dtype() == kFloat64,
              "unscale: gradients must be float32 or float64 (keep the parameters in float32 under autocast), got a "
              "{} gradient of shape {}",
              grad.dtype(), grad.sizes());
  BRISK_CHECK(found_inf.dtype() == kFloat32 && found_inf.numel() == 1 && found_inf.device() == grad.device(),
              "unscale: found_inf {} must be one float32 element on the gradient's device {}", found_inf.describe(),
              grad.device());
  UpdatedOperand g(grad, update_strides(grad));
  backend_for(grad.device()).non_finite_check_and_unscale(g.work, found_inf, inv_scale);
  g.write_back();
}

}  // namespace brisk::native
