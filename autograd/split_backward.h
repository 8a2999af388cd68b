#pragma once
// Backward in two passes, for zero-bubble pipeline schedules (distributed/pipeline/): the
// gradients of a stage's inputs first, which the previous stage waits for, and its weights'
// gradients later, when the rank would otherwise be idle. Nothing is computed twice.
//
//   InputGradients in = backward_input({out}, {grad_out}, {x});
//   send(in.grads[0]);                  // dL/dx; no .grad was touched
//   ...
//   backward_weight(std::move(in.weights));  // dL/dW into every parameter's .grad
//
// backward_input runs only the nodes on the paths from `outputs` to `inputs` (as grad() does),
// and each of them computes only the gradients along those paths (Engine::wants_gradient): a
// linear layer's node computes dL/dx, not dL/dW. A node that ran with other valid edges (to
// the weights, or to what computes them) is held in the result with the gradients it received,
// and keeps its saved tensors. backward_weight runs one backward pass over the held nodes, each
// applied for those edges only and in its place in the engine's order, and the nodes they lead
// to; it accumulates into the leaves' .grad and runs their hooks as backward() does, and frees
// the held nodes' saved tensors. The two passes give the gradients backward() gives, bitwise
// (the tests compare them so).
//
// With no input requiring grad (a first pipeline stage reading token ids), backward_input
// computes nothing and backward_weight runs the whole backward. The graph is not kept for a
// second backward (retain_graph false), and no gradient gets a history (create_graph false).
#include <vector>

#include "autograd/engine.h"

namespace brisk::autograd {

struct InputGradients;

// The weight gradients backward_input left to compute: movable, run once by backward_weight.
// Dropping it without running frees the held graph, and the weights get no gradient.
class DeferredWeightGradients {
 public:
  DeferredWeightGradients() = default;
  DeferredWeightGradients(DeferredWeightGradients&&) = default;
  DeferredWeightGradients& operator=(DeferredWeightGradients&&) = default;
  DeferredWeightGradients(const DeferredWeightGradients&) = delete;
  DeferredWeightGradients& operator=(const DeferredWeightGradients&) = delete;

  // The nodes held, whose saved tensors stay alive until backward_weight.
  size_t held_nodes() const { return held_.size(); }
  bool empty() const { return held_.empty() && roots_.edges.empty(); }

 private:
  friend InputGradients backward_input(const TensorList&, const TensorList&, const TensorList&);
  friend void backward_weight(DeferredWeightGradients&&);

  std::vector<SkippedGradients> held_;
  GraphRoots roots_;  // when no input pass ran: the roots, for backward_weight to start from
};

struct InputGradients {
  TensorList grads;  // one per input: undefined where the input needs none or none arrives
  DeferredWeightGradients weights;
};

// The gradients of `inputs` from `outputs` with `grad_outputs` (as backward() takes them: one
// per output, or none for one-element outputs), and the weight gradients deferred.
InputGradients backward_input(const TensorList& outputs, const TensorList& grad_outputs, const TensorList& inputs);

// Computes the deferred weight gradients into the leaves' .grad and frees what was held.
void backward_weight(DeferredWeightGradients&& deferred);

}  // namespace brisk::autograd
