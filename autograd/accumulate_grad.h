#pragma once
// Where the gradient of a leaf ends up: the AccumulateGrad node adds it into the leaf's .grad.
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "autograd/node.h"

namespace brisk::autograd {

class AccumulateGrad final : public Node {
 public:
  // Runs as soon as it is ready (its gradient is complete), so .grad and the post-accumulate
  // hooks that DistributedDataParallel relies on see gradients as early as possible.
  explicit AccumulateGrad(Tensor variable)
      : Node(std::numeric_limits<uint64_t>::max()), variable_(std::move(variable)) {
    add_input_metadata(variable_);
  }

  std::string name() const override { return "AccumulateGrad"; }
  // Accumulates into .grad, then runs the leaf's post-accumulate-grad hooks.
  TensorList apply(TensorList&& grads) override;
  // The leaf's own hooks (registered with register_hook) live on the leaf.
  Tensor call_pre_hooks(uint32_t slot, Tensor grad) override;

  const Tensor& variable() const { return variable_; }

 private:
  Tensor variable_;
};

// Sums `grad` (if defined) into `sum` (a gradient so far, or undefined): with history under
// `create_graph`, else in place when no other handle sees sum's memory.
void accumulate(Tensor& sum, Tensor grad, bool create_graph);

// Clears the gradients of `params` (Module::zero_grad, Optimizer::zero_grad): drops them, or
// with set_to_none = false detaches them and fills them with zeros in place.
void zero_gradients(const std::vector<Tensor>& params, bool set_to_none = true);

// The leaf's AccumulateGrad: created on first use, shared by every graph using the leaf, and
// freed with the last of them.
std::shared_ptr<Node> grad_accumulator(const Tensor& leaf);

// The edge a gradient for `t` flows into: its grad_fn's slot for a non-leaf, its
// AccumulateGrad for a leaf that requires grad, none otherwise.
Edge gradient_edge(const Tensor& t);

}  // namespace brisk::autograd
