// The entry points of the backward pass: backward() and grad().
#include "autograd/accumulate_grad.h"
#include "autograd/engine.h"
#include "tensor/native/ops.h"

namespace brisk::autograd {

GraphRoots make_roots(const char* op, const TensorList& tensors, const TensorList& grad_tensors) {
  BRISK_CHECK(!tensors.empty(), "{}: no output tensors given", op);
  BRISK_CHECK(grad_tensors.empty() || grad_tensors.size() == tensors.size(), "{}: got {} tensors but {} gradients", op,
              tensors.size(), grad_tensors.size());
  GraphRoots roots;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    BRISK_CHECK(t.defined(), "{}: output {} is an undefined tensor", op, i);
    BRISK_CHECK(t.requires_grad(), "{}: element {} of tensors does not require grad and does not have a grad_fn ({})",
                op, i, t.describe());
    Tensor grad = grad_tensors.empty() ? Tensor() : grad_tensors[i];
    if (grad.defined()) {
      BRISK_CHECK(grad.sizes() == t.sizes(),
                  "{}: Mismatch in shape: grad_output[{}] has a shape of {} and output[{}] has a shape of {}", op, i,
                  grad.sizes(), i, t.sizes());
    } else {
      BRISK_CHECK(t.numel() == 1,
                  "{}: grad can be implicitly created only for scalar outputs, got output {} of shape {}", op, i,
                  t.sizes());
      grad = native::ones(t.sizes(), t.options());
    }
    roots.edges.push_back(gradient_edge(t));
    roots.grads.push_back(std::move(grad));
  }
  return roots;
}

void backward(const TensorList& tensors, const TensorList& grad_tensors, std::optional<bool> retain_graph,
              bool create_graph) {
  GraphRoots roots = make_roots("backward", tensors, grad_tensors);
  Engine::execute(roots.edges, roots.grads, retain_graph.value_or(create_graph), create_graph);
}

TensorList grad(const TensorList& outputs, const TensorList& inputs, const TensorList& grad_outputs,
                std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  GraphRoots roots = make_roots("grad", outputs, grad_outputs);
  BRISK_CHECK(!inputs.empty(), "grad: no input tensors given");
  std::vector<Edge> capture;
  for (size_t i = 0; i < inputs.size(); ++i) {
    BRISK_CHECK(inputs[i].defined() && inputs[i].requires_grad(),
                "grad: one of the differentiated Tensors (input {}, {}) does not require grad", i,
                inputs[i].describe());
    capture.push_back(gradient_edge(inputs[i]));
  }
  TensorList result =
      Engine::execute(roots.edges, roots.grads, retain_graph.value_or(create_graph), create_graph, capture);
  for (size_t i = 0; i < result.size(); ++i) {
    BRISK_CHECK(allow_unused || result[i].defined(),
                "grad: one of the differentiated Tensors (input {}, {}) appears to not have been used in the graph. "
                "Set allow_unused=true if this is the desired behavior.",
                i, inputs[i].describe());
  }
  return result;
}

}  // namespace brisk::autograd
