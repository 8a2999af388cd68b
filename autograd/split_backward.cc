#include "autograd/split_backward.h"

#include <algorithm>

#include "autograd/autocast.h"
#include "autograd/grad_mode.h"
#include "autograd/accumulate_grad.h"

namespace brisk::autograd {

InputGradients backward_input(const TensorList& outputs, const TensorList& grad_outputs, const TensorList& inputs) {
  GraphRoots roots = make_roots("backward_input", outputs, grad_outputs);
  InputGradients result;
  result.grads.resize(inputs.size());
  std::vector<Edge> capture;
  for (const Tensor& input : inputs) {
    capture.push_back(input.defined() && input.requires_grad() ? gradient_edge(input) : Edge());
  }
  if (std::none_of(capture.begin(), capture.end(), [](const Edge& e) { return e.valid(); })) {
    result.weights.roots_ = std::move(roots);
    return result;
  }
  result.grads = Engine::execute(roots.edges, roots.grads, /*keep_graph=*/false, /*create_graph=*/false, capture,
                                 &result.weights.held_);
  return result;
}

void backward_weight(DeferredWeightGradients&& deferred) {
  GraphRoots roots = std::move(deferred.roots_);
  std::vector<SkippedGradients> held = std::move(deferred.held_);
  {
    // As Engine::execute runs a node without create_graph.
    NoGradGuard no_grad;
    AutocastOff no_autocast;
    for (SkippedGradients& h : held) {
      TensorList grads = Engine::apply_node(*h.node, std::move(h.grads), h.edges);
      h.node->release_saved();
      for (size_t i = 0; i < grads.size(); ++i) {
        if (!h.edges[i] || !grads[i].defined()) continue;
        roots.edges.push_back(h.node->next_edge(i));
        roots.grads.push_back(std::move(grads[i]));
      }
    }
  }
  if (!roots.edges.empty()) Engine::execute(roots.edges, roots.grads, /*keep_graph=*/false, /*create_graph=*/false);
}

}  // namespace brisk::autograd
