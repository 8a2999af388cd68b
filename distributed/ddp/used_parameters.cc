#include "distributed/ddp/used_parameters.h"

#include "autograd/accumulate_grad.h"

namespace brisk::dist {

std::unordered_set<const TensorImpl*> reachable_leaves(const std::vector<Tensor>& outputs) {
  std::unordered_set<const TensorImpl*> leaves;
  std::unordered_set<const autograd::Node*> seen;
  std::vector<autograd::Node*> stack;
  for (const Tensor& output : outputs) {
    if (!output.defined() || !output.requires_grad()) continue;
    if (output.is_leaf()) {
      leaves.insert(output.impl());
    } else if (seen.insert(output.grad_fn().get()).second) {
      stack.push_back(output.grad_fn().get());
    }
  }
  while (!stack.empty()) {
    autograd::Node* node = stack.back();
    stack.pop_back();
    if (auto* accumulate = dynamic_cast<autograd::AccumulateGrad*>(node)) {
      leaves.insert(accumulate->variable().impl());
      continue;
    }
    for (const autograd::Edge& edge : node->next_edges()) {
      if (edge.valid() && seen.insert(edge.node.get()).second) stack.push_back(edge.node.get());
    }
  }
  return leaves;
}

}  // namespace brisk::dist
