#pragma once
// Recording an op's history: how the differentiable ops attach a backward closure to
// their outputs.
//
//   Tensor exp(const Tensor& x) {
//     Tensor out = native::unary(UnaryOp::Exp, x);
//     return record("ExpBackward", out, {x}, {out},
//                   [](const BackwardArgs& a) -> TensorList { return {a.grad() * a.saved[0]}; });
//   }
//
// The closure returns one gradient per input (undefined where an input needs none; check
// a.needs_grad to skip work). It need not reduce over broadcast dims or cast to the input's
// dtype: the engine does that for every node (validate_grads). It must compute with the
// public differentiable ops, so that under create_graph the gradient itself gets a history.
// Tensors the backward needs go in the saved list, never in the lambda's captures, so
// that in-place changes are detected and retain_graph=false frees them.
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "autograd/node.h"
#include "autograd/saved_tensor.h"

namespace brisk::autograd {

struct BackwardArgs {
  // The gradient of each output; zeros where none flowed (unless none flowed at all, in
  // which case the closure is not called).
  TensorList grads;
  // The saved tensors, in the order given to record.
  TensorList saved;
  // Whether each input wants a gradient.
  std::vector<bool> needs_grad;

  const Tensor& grad() const { return grads[0]; }
};

using BackwardFn = std::function<TensorList(const BackwardArgs&)>;

// The node of an op recorded by `record`. `name` must outlive the node (a string literal).
class ClosureNode final : public Node {
 public:
  ClosureNode(const char* name, BackwardFn fn) : name_(name), fn_(std::move(fn)) {}

  std::string name() const override { return name_; }
  TensorList apply(TensorList&& grads) override;
  void release_saved() override;

  void set_saved(std::vector<SavedTensor> saved) { saved_ = std::move(saved); }

 private:
  const char* name_;
  BackwardFn fn_;
  std::vector<SavedTensor> saved_;
};

// Whether an op on `inputs` records history: grad mode is on and some input requires grad.
bool needs_history(std::initializer_list<Tensor> inputs);
bool needs_history(const TensorList& inputs);

// Attaches a ClosureNode to `outputs` and returns them; the record* functions below call it
// only when needs_history(inputs), so an op costs no allocation when nothing is recorded.
// Only floating-point outputs get the node as grad_fn; every output keeps its slot. An
// output that is the same tensor as an input is replaced by an alias, so the input's own
// history is never overwritten.
TensorList attach_history(const char* name, TensorList outputs, const TensorList& inputs, const TensorList& saved,
                          BackwardFn fn);

// For in-place ops: `self` (already modified, listed among `inputs` for its old history)
// gets a new node as grad_fn. A retain_grad on `self` moves to the new node.
void rebase_history_now(const char* name, const Tensor& self, const TensorList& inputs, const TensorList& saved,
                        BackwardFn fn);

// `inputs`: a braced list of tensors or a TensorList.
template <typename Inputs = std::initializer_list<Tensor>, typename F>
Tensor record(const char* name, Tensor output, const Inputs& inputs, std::initializer_list<Tensor> saved, F&& fn) {
  if (!needs_history(inputs)) return output;
  return attach_history(name, {std::move(output)}, inputs, saved, std::forward<F>(fn))[0];
}

template <typename F>
TensorList record(const char* name, TensorList outputs, std::initializer_list<Tensor> inputs,
                  std::initializer_list<Tensor> saved, F&& fn) {
  if (!needs_history(inputs)) return outputs;
  return attach_history(name, std::move(outputs), inputs, saved, std::forward<F>(fn));
}

template <typename F>
void rebase_history(const char* name, const Tensor& self, std::initializer_list<Tensor> inputs,
                    std::initializer_list<Tensor> saved, F&& fn) {
  if (needs_history(inputs)) rebase_history_now(name, self, inputs, saved, std::forward<F>(fn));
}

// The steps of attach_history, which custom functions (autograd/function.h) take one by one.
// The edges a node for `inputs` sends their gradients along.
std::vector<Edge> collect_next_edges(const TensorList& inputs);
// `output`, or a new handle to it (an alias) when it is one of `inputs`, whose history it must
// not overwrite.
Tensor distinct_from_inputs(const Tensor& output, const TensorList& inputs);
// Registers `output` as the node's next output and, when it is floating point and
// `differentiable`, makes the node its grad_fn.
void set_history(const Tensor& output, const std::shared_ptr<Node>& node, bool differentiable = true);
// Makes `node` the grad_fn of `self`, which an in-place change made its output; a retain_grad on
// `self` moves to the new node.
void rebase_onto(const Tensor& self, const std::shared_ptr<Node>& node);
// The tensors to save for the node of `outputs`, each recognised as one of them or not.
std::vector<SavedTensor> pack_saved(const TensorList& saved, const TensorList& outputs);

// Makes retain_grad() keep the gradient of non-leaf `t` (used by Tensor::retain_grad and by
// rebase_history).
void install_retain_grad_hook(const Tensor& t);

}  // namespace brisk::autograd
