#pragma once
// Autograd state of a tensor. It lives in the tensor layer so a Tensor can carry it, but
// only autograd/ gives it meaning; the tensor library never looks inside.
#include <cstdint>
#include <memory>
#include <vector>

#include "tensor/tensor.h"

namespace brisk {

struct AutogradMeta {
  bool requires_grad = false;
  // Accumulated gradient of a leaf, or of a non-leaf that retains its grad.
  Tensor grad;
  // The node that produced this tensor (null for leaves) and which of its outputs it is.
  std::shared_ptr<autograd::Node> grad_fn;
  uint32_t output_nr = 0;
  // A leaf's AccumulateGrad node, shared by every graph that uses the leaf.
  std::weak_ptr<autograd::Node> grad_accumulator;
  // Hooks of a leaf, run before accumulation (a non-leaf's hooks live on its grad_fn).
  std::vector<std::pair<size_t, GradHook>> hooks;
  std::vector<std::pair<size_t, PostAccumulateGradHook>> post_accumulate_hooks;
  bool retains_grad = false;
  size_t retain_grad_hook = 0;
  // Set for views of tensors that require grad: an in-place change to such a view is refused,
  // since its base's history would not see it.
  bool is_view = false;
};

}  // namespace brisk
