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

// unscale's operands: a float gradient and one float32 flag on its device.
void check_unscale(const Tensor& grad, const Tensor& found_inf) {
  BRISK_CHECK(grad.dtype() == kFloat32 || grad.dtype() == kFloat64,
              "unscale: gradients must be float32 or float64 (keep the parameters in float32 under autocast), got a "
              "{} gradient of shape {}",
              grad.dtype(), grad.sizes());
  BRISK_CHECK(found_inf.dtype() == kFloat32 && found_inf.numel() == 1 && found_inf.device() == grad.device(),
              "unscale: found_inf {} must be one float32 element on the gradient's device {}", found_inf.describe(),
              grad.device());
}

// A multi-tensor update's operands, list by list: the parameters first, then the gradients,
// then the state buffers (a buffer list the options do not use is empty).
struct OperandList {
  const char* name;  // of one element: "grad", "exp_avg", ...
  const std::vector<Tensor>* tensors;
  bool needed;  // by the options; an unneeded list must be empty
};

// Checks the lists against the parameters (each of params' length, or empty when not needed)
// and each parameter's operands as the per-tensor op does (check_operands); every parameter
// must share params[0]'s dtype and device, as one kernel updates them all.
void check_lists(const char* op, const std::vector<Tensor>& params, const std::vector<OperandList>& lists) {
  for (const OperandList& list : lists) {
    const size_t expected = list.needed ? params.size() : 0;
    BRISK_CHECK(list.tensors->size() == expected, "{}: {} {}s for {} parameters (expected {})", op,
                list.tensors->size(), list.name, params.size(), expected);
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& param = params[i];
    BRISK_CHECK(param.dtype() == params[0].dtype() && param.device() == params[0].device(),
                "{}: parameter {} ({}) and parameter 0 ({}) differ in dtype or device; one call updates tensors of "
                "one dtype on one device",
                op, i, param.describe(), params[0].describe());
    for (const OperandList& list : lists) {
      if (!list.needed) continue;
      const Tensor& t = (*list.tensors)[i];
      BRISK_CHECK(t.defined(), "{}: parameter {} (shape {}) has no {}", op, i, param.sizes(), list.name);
      check_operands(op, param, {{list.name, &t}});
    }
  }
}

// The tensors of a multi-tensor update whose operands all lie as their parameter does, a dense
// one (what the backend's multi-tensor kernels take), and the indices of the others, which the
// per-tensor op updates through its copies (UpdatedOperand).
struct LayoutSplit {
  std::vector<Tensor> params;
  std::vector<std::vector<Tensor>> lists;  // the operand lists' tensors of `params`, in order
  std::vector<size_t> others;
};

LayoutSplit split_by_layout(const std::vector<Tensor>& params, const std::vector<OperandList>& lists) {
  LayoutSplit split;
  split.lists.resize(lists.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const Shape& strides = params[i].strides();
    bool same_layout = is_non_overlapping_and_dense(params[i].sizes(), strides);
    for (const OperandList& list : lists) {
      same_layout = same_layout && (!list.needed || has_strides((*list.tensors)[i], strides));
    }
    if (!same_layout) {
      split.others.push_back(i);
      continue;
    }
    split.params.push_back(params[i]);
    for (size_t l = 0; l < lists.size(); ++l) {
      if (lists[l].needed) split.lists[l].push_back((*lists[l].tensors)[i]);
    }
  }
  return split;
}

// Marks the tensors an update wrote as modified (see UpdatedOperand::write_back).
void bump_versions(const std::vector<Tensor>& tensors) {
  for (const Tensor& t : tensors) t.bump_version();
}

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
  check_unscale(grad, found_inf);
  UpdatedOperand g(grad, update_strides(grad));
  backend_for(grad.device()).non_finite_check_and_unscale(g.work, found_inf, inv_scale);
  g.write_back();
}

void multi_tensor_sgd_step_(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                            const std::vector<Tensor>& momentum_buffers, const SgdStepParams& options) {
  const std::vector<OperandList> lists{{"grad", &grads, true},
                                       {"momentum_buffer", &momentum_buffers, options.momentum != 0.0}};
  check_lists("multi_tensor_sgd_step", params, lists);
  LayoutSplit split = split_by_layout(params, lists);
  if (!split.params.empty()) {
    backend_for(params[0].device()).multi_tensor_sgd_step(split.params, split.lists[0], split.lists[1], options);
    for (const std::vector<Tensor>* written : {&split.params, &split.lists[1]}) bump_versions(*written);
  }
  for (size_t i : split.others) {
    sgd_step_(params[i], grads[i], momentum_buffers.empty() ? Tensor() : momentum_buffers[i], options);
  }
}

void multi_tensor_adam_step_(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                             const std::vector<Tensor>& exp_avgs, const std::vector<Tensor>& exp_avg_sqs,
                             const std::vector<Tensor>& max_exp_avg_sqs, const AdamStepParams& options) {
  const std::vector<OperandList> lists{{"grad", &grads, true},
                                       {"exp_avg", &exp_avgs, true},
                                       {"exp_avg_sq", &exp_avg_sqs, true},
                                       {"max_exp_avg_sq", &max_exp_avg_sqs, options.amsgrad}};
  check_lists("multi_tensor_adam_step", params, lists);
  LayoutSplit split = split_by_layout(params, lists);
  if (!split.params.empty()) {
    backend_for(params[0].device())
        .multi_tensor_adam_step(split.params, split.lists[0], split.lists[1], split.lists[2], split.lists[3], options);
    for (const std::vector<Tensor>* written : {&split.params, &split.lists[1], &split.lists[2], &split.lists[3]}) {
      bump_versions(*written);
    }
  }
  for (size_t i : split.others) {
    adam_step_(params[i], grads[i], exp_avgs[i], exp_avg_sqs[i],
               max_exp_avg_sqs.empty() ? Tensor() : max_exp_avg_sqs[i], options);
  }
}

void multi_tensor_non_finite_check_and_unscale_(const std::vector<Tensor>& grads, const Tensor& found_inf,
                                                float inv_scale) {
  if (grads.empty()) return;
  for (const Tensor& grad : grads) {
    BRISK_CHECK(grad.dtype() == grads[0].dtype() && grad.device() == grads[0].device(),
                "unscale: gradients {} and {} differ in dtype or device; one call unscales gradients of one dtype on "
                "one device",
                grads[0].describe(), grad.describe());
  }
  std::vector<Tensor> dense;
  for (const Tensor& grad : grads) {
    if (is_non_overlapping_and_dense(grad.sizes(), grad.strides())) dense.push_back(grad);
  }
  if (!dense.empty()) {
    check_unscale(dense[0], found_inf);
    backend_for(dense[0].device()).multi_tensor_non_finite_check_and_unscale(dense, found_inf, inv_scale);
    bump_versions(dense);
  }
  for (const Tensor& grad : grads) {
    if (!is_non_overlapping_and_dense(grad.sizes(), grad.strides()))
      non_finite_check_and_unscale_(grad, found_inf, inv_scale);
  }
}

}  // namespace brisk::native
