#include "autograd/accumulate_grad.h"

#include "autograd/grad_mode.h"
#include "tensor/autograd_meta.h"
#include "tensor/native/ops.h"

namespace brisk::autograd {

namespace {

// No handle but `t` sees its memory, and it is dense (an expanded gradient's stride-0
// elements share memory).
bool exclusively_owned(const Tensor& t) {
  return t.use_count() == 1 && t.storage().use_count() == 1 && is_non_overlapping_and_dense(t.sizes(), t.strides());
}

// PyTorch's layout contract for .grad: the strides of a dense leaf (a channels_last weight
// gets a channels_last gradient; the strides of size-1 dims do not matter), else contiguous.
bool obeys_layout_contract(const Tensor& grad, const Tensor& leaf) {
  if (!is_non_overlapping_and_dense(leaf.sizes(), leaf.strides())) return grad.is_contiguous();
  for (int64_t d = 0; d < grad.dim(); ++d) {
    if (grad.size(d) != 1 && grad.stride(d) != leaf.stride(d)) return false;
  }
  return true;
}

// A copy of `grad` that obeys the layout contract of `leaf`.
Tensor clone_obeying_contract(const Tensor& grad, const Tensor& leaf) {
  if (!is_non_overlapping_and_dense(leaf.sizes(), leaf.strides())) return native::clone(grad, MemoryFormat::Contiguous);
  Tensor out = native::empty_strided(leaf.sizes(), leaf.strides(), grad.options());
  return native::copy_(out, grad);
}

}  // namespace

void accumulate(Tensor& sum, Tensor grad, bool create_graph) {
  if (!grad.defined()) return;
  if (!sum.defined()) {
    sum = std::move(grad);
  } else if (create_graph) {
    sum = sum + grad;
  } else if (exclusively_owned(sum) && sum.sizes() == grad.sizes() && sum.dtype() == grad.dtype()) {
    native::binary_(BinaryOp::Add, sum, grad, OpParams{1.0});
    sum.bump_version();
  } else {
    sum = native::binary(BinaryOp::Add, sum, grad, OpParams{1.0});
  }
}

TensorList AccumulateGrad::apply(TensorList&& grads) {
  Tensor grad = std::move(grads[0]);
  if (!grad.defined()) return {};
  AutogradMeta& meta = variable_.autograd_meta();
  const bool create_graph = GradMode::is_enabled();
  // A first gradient that other handles see, or laid out unlike the leaf, is copied: .grad
  // must be the leaf's own, in the leaf's layout.
  if (!meta.grad.defined() && !create_graph && (!exclusively_owned(grad) || !obeys_layout_contract(grad, variable_))) {
    grad = clone_obeying_contract(grad, variable_);
  }
  accumulate(meta.grad, std::move(grad), create_graph);
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

void zero_gradients(const std::vector<Tensor>& params, bool set_to_none) {
  NoGradGuard no_grad;
  for (Tensor p : params) {
    if (!p.grad().defined()) continue;
    if (set_to_none) {
      p.set_grad(Tensor());
      continue;
    }
    Tensor& grad = p.mutable_grad();
    // A gradient built with create_graph has a history; zeroing it must not extend that.
    if (grad.grad_fn()) {
      grad.detach_();
    } else if (grad.requires_grad()) {
      grad.requires_grad_(false);
    }
    grad.zero_();
  }
}

}  // namespace brisk::autograd
