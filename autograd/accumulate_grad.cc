#include "autograd/accumulate_grad.h"

#include "autograd/grad_mode.h"
#include "tensor/autograd_meta.h"
#include "tensor/native/ops.h"

namespace brisk::autograd {

bool exclusively_owned(const Tensor& t) {
  return t.use_count() == 1 && t.storage().use_count() == 1 && t.is_contiguous();
}

TensorList AccumulateGrad::apply(TensorList&& grads) {
  Tensor grad = std::move(grads[0]);
  if (!grad.defined()) return {};
  AutogradMeta& meta = variable_.autograd_meta();
  Tensor& current = meta.grad;
  if (GradMode::is_enabled()) {
    // create_graph: .grad keeps its history so it can be differentiated again.
    current = current.defined() ? current + grad : grad;
  } else if (!current.defined()) {
    current = exclusively_owned(grad) ? std::move(grad) : native::clone(grad);
  } else if (exclusively_owned(current) && current.sizes() == grad.sizes()) {
    native::binary_(BinaryOp::Add, current, grad, OpParams{1.0});
    current.bump_version();
  } else {
    current = native::binary(BinaryOp::Add, current, grad, OpParams{1.0});
  }
  for (auto& hook : meta.post_accumulate_hooks) hook.second(variable_);
  return {};
}

Tensor AccumulateGrad::call_pre_hooks(uint32_t, Tensor grad) {
  AutogradMeta* meta = variable_.autograd_meta_if_exists();
  if (meta == nullptr) return grad;
  for (const auto& hook : meta->hooks) {
    Tensor replaced = hook.second(grad);
    if (replaced.defined()) grad = std::move(replaced);
  }
  return grad;
}

std::shared_ptr<Node> grad_accumulator(const Tensor& leaf) {
  AutogradMeta& meta = leaf.autograd_meta();
  std::shared_ptr<Node> node = meta.grad_accumulator.lock();
  if (!node) {
    node = std::make_shared<AccumulateGrad>(leaf);
    meta.grad_accumulator = node;
  }
  return node;
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined() || !t.requires_grad()) return Edge{};
  if (const auto& fn = t.grad_fn()) return Edge{fn, t.output_nr()};
  return Edge{grad_accumulator(t), 0};
}

}  // namespace brisk::autograd
