#pragma once
// A node of the backward graph: the backward of one recorded op.
//
// Naming follows PyTorch: a node's *inputs* are the gradients it receives, one per output
// of the forward op (slot i = forward output i); its *outputs* are the gradients it sends
// along its next edges, one per input of the forward op. An edge names the node that
// receives a gradient and the input slot it arrives in.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace brisk::autograd {

using TensorList = std::vector<Tensor>;

class Node;

struct Edge {
  std::shared_ptr<Node> node;
  uint32_t input_nr = 0;

  bool valid() const { return node != nullptr; }
};

// What the gradient arriving in a slot must look like: it is the shape, dtype and device of
// the forward output for that slot.
struct InputMetadata {
  Shape shape;
  DType dtype = kFloat32;
  Device device = kCPU;

  explicit InputMetadata(const Tensor& t) : shape(t.sizes()), dtype(t.dtype()), device(t.device()) {}
  // A zero gradient for a slot no gradient flowed into.
  Tensor zeros() const;
};

class Node : public std::enable_shared_from_this<Node> {
 public:
  // Takes the next sequence number: nodes recorded later run earlier in backward.
  Node();
  explicit Node(uint64_t sequence_nr) : sequence_nr_(sequence_nr) {}
  // Destroys long chains of nodes iteratively, so freeing a deep graph cannot overflow the stack.
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  virtual std::string name() const = 0;
  uint64_t sequence_nr() const { return sequence_nr_; }

  // The gradients of the forward inputs, one per next edge, from those of the forward
  // outputs (undefined where no gradient flowed). Runs with grad mode on only under
  // create_graph.
  virtual TensorList apply(TensorList&& grads) = 0;
  // Frees what was saved for backward; called after apply unless retain_graph.
  virtual void release_saved() {}

  const std::vector<Edge>& next_edges() const { return next_edges_; }
  const Edge& next_edge(size_t i) const { return next_edges_[i]; }
  size_t num_outputs() const { return next_edges_.size(); }
  void set_next_edges(std::vector<Edge> edges) { next_edges_ = std::move(edges); }

  // Registers the next forward output; returns its slot.
  uint32_t add_input_metadata(const Tensor& output);
  const InputMetadata& input_metadata(size_t slot) const { return input_metadata_[slot]; }
  size_t num_inputs() const { return input_metadata_.size(); }

  // Hooks on the gradient arriving in `slot` (the tensor hooks of a non-leaf output). They run
  // in registration order; a hook returning a defined tensor replaces the gradient. Hooks
  // added with `runs_last` (retain_grad) run after all others and see the final gradient.
  void add_pre_hook(size_t handle, uint32_t slot, GradHook hook, bool runs_last = false);
  // False when no hook of this node has the handle.
  bool remove_pre_hook(size_t handle);
  // Applies the slot's hooks to `grad`. AccumulateGrad runs its leaf's hooks instead.
  virtual Tensor call_pre_hooks(uint32_t slot, Tensor grad);

  // The stack of the forward call that created this node, when it was created in anomaly mode
  // (autograd/anomaly_mode.h); null otherwise.
  const std::vector<void*>* forward_stack() const { return forward_stack_.get(); }

 private:
  struct PreHook {
    size_t handle;
    uint32_t slot;
    bool runs_last;
    GradHook fn;
  };

  uint64_t sequence_nr_;
  std::vector<Edge> next_edges_;
  std::vector<InputMetadata> input_metadata_;
  std::vector<PreHook> pre_hooks_;
  std::unique_ptr<const std::vector<void*>> forward_stack_;
};

// A fresh handle for register_hook and friends, unique across all tensors and nodes.
size_t next_hook_handle();

// Brings the gradients a node returned to the form its next edges expect: the count must
// match, a gradient of a broadcast shape is summed back to the input's shape, the dtype is
// cast to the input's. Errors name the node, the slot and both shapes.
TensorList validate_grads(const Node& node, TensorList grads);

}  // namespace brisk::autograd
