// The autograd methods of Tensor: backward, detach, hooks, retain_grad.
#include <algorithm>

#include "autograd/engine.h"
#include "autograd/record.h"
#include "tensor/autograd_meta.h"
#include "tensor/native/ops.h"

namespace brisk {

void Tensor::backward(const Tensor& gradient, bool retain_graph, bool create_graph) const {
  autograd::backward({*this}, {gradient}, retain_graph || create_graph, create_graph);
}

Tensor Tensor::detach() const { return native::alias(*this); }

Tensor& Tensor::detach_() {
  AutogradMeta* meta = autograd_meta_if_exists();
  if (meta == nullptr) return *this;
  BRISK_CHECK(!meta->is_view, "detach_: can't detach views in-place ({}); use detach() instead", describe());
  meta->grad_fn.reset();
  meta->output_nr = 0;
  meta->requires_grad = false;
  meta->retains_grad = false;
  return *this;
}

void Tensor::retain_grad() const {
  BRISK_CHECK(requires_grad(), "retain_grad: can't retain_grad on a tensor that has requires_grad=false ({})",
              describe());
  if (is_leaf()) return;  // leaves keep their gradient anyway
  autograd::install_retain_grad_hook(*this);
}

bool Tensor::retains_grad() const {
  const AutogradMeta* meta = autograd_meta_if_exists();
  return meta != nullptr && meta->retains_grad;
}

size_t Tensor::register_hook(GradHook hook) const {
  BRISK_CHECK(requires_grad(), "register_hook: cannot register a hook on a tensor that doesn't require gradient ({})",
              describe());
  size_t handle = autograd::next_hook_handle();
  if (is_leaf()) {
    autograd_meta().hooks.emplace_back(handle, std::move(hook));
  } else {
    grad_fn()->add_pre_hook(handle, output_nr(), std::move(hook));
  }
  return handle;
}

void Tensor::remove_hook(size_t handle) const {
  AutogradMeta* meta = autograd_meta_if_exists();
  if (meta == nullptr) return;
  auto matches = [handle](const auto& entry) { return entry.first == handle; };
  meta->hooks.erase(std::remove_if(meta->hooks.begin(), meta->hooks.end(), matches), meta->hooks.end());
  meta->post_accumulate_hooks.erase(
      std::remove_if(meta->post_accumulate_hooks.begin(), meta->post_accumulate_hooks.end(), matches),
      meta->post_accumulate_hooks.end());
  if (meta->grad_fn) meta->grad_fn->remove_pre_hook(handle);
}

size_t Tensor::register_post_accumulate_grad_hook(PostAccumulateGradHook hook) const {
  BRISK_CHECK(requires_grad() && is_leaf(),
              "register_post_accumulate_grad_hook: post accumulate grad hooks can only be registered on leaf "
              "tensors that require grad ({})",
              describe());
  size_t handle = autograd::next_hook_handle();
  autograd_meta().post_accumulate_hooks.emplace_back(handle, std::move(hook));
  return handle;
}

}  // namespace brisk
