#include "autograd/split_backward.h"

#include <algorithm>

#include "autograd/accumulate_grad.h"
#include "tensor/native/ops.h"

namespace brisk::autograd {

namespace {

// A held node in the weight pass: it runs in the held node's place in the engine's order (its
// sequence number), among the nodes the weight gradients flow through, and applies the held node
// for its skipped edges only. So the gradients meeting at a tensor are summed in the order
// backward() sums them. The engine reaches it with `trigger`, a scalar it ignores.
class HeldNode final : public Node {
 public:
  HeldNode(SkippedGradients held, const Tensor& trigger) : Node(held.node->sequence_nr()), held_(std::move(held)) {
    std::vector<Edge> edges;
    for (size_t i = 0; i < held_.edges.size(); ++i) edges.push_back(held_.edges[i] ? held_.node->next_edge(i) : Edge());
    set_next_edges(std::move(edges));
    add_input_metadata(trigger);
  }
  std::string name() const override { return held_.node->name() + " (weights)"; }
  TensorList apply(TensorList&&) override {
    TensorList grads = Engine::apply_node(*held_.node, std::move(held_.grads), held_.edges);
    held_.node->release_saved();
    return grads;
  }

 private:
  SkippedGradients held_;
};

}  // namespace

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
  const Tensor trigger = native::zeros({}, TensorOptions(kFloat32));
  for (SkippedGradients& h : held) {
    roots.edges.push_back(Edge{std::make_shared<HeldNode>(std::move(h), trigger), 0});
    roots.grads.push_back(trigger);
  }
  if (!roots.edges.empty()) Engine::execute(roots.edges, roots.grads, /*keep_graph=*/false, /*create_graph=*/false);
}

}  // namespace brisk::autograd
