#include "autograd/node.h"

#include <algorithm>
#include <atomic>

#include "autograd/anomaly_mode.h"
#include "autograd/backward_ops.h"
#include "tensor/native/ops.h"

namespace brisk::autograd {

namespace {
std::atomic<uint64_t> next_sequence_nr{0};
std::atomic<size_t> hook_counter{0};

// Set while ~Node drains a chain: nested destructors hand their edges over instead of
// recursing.
thread_local std::vector<std::shared_ptr<Node>>* pending_deletes = nullptr;

// True when `shape` broadcasts to `target` (so sum_to can undo the broadcast).
bool expandable_to(const Shape& shape, const Shape& target) {
  if (shape.size() > target.size()) return false;
  size_t lead = target.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != 1 && shape[i] != target[lead + i]) return false;
  }
  return true;
}
}  // namespace

Tensor InputMetadata::zeros() const { return native::zeros(shape, TensorOptions(dtype).device(device)); }

Node::Node()
    : sequence_nr_(next_sequence_nr.fetch_add(1, std::memory_order_relaxed)), forward_stack_(capture_forward_stack()) {}

Node::~Node() {
  if (pending_deletes != nullptr) {
    for (auto& edge : next_edges_) {
      if (edge.node) pending_deletes->push_back(std::move(edge.node));
    }
    return;
  }
  std::vector<std::shared_ptr<Node>> stack;
  for (auto& edge : next_edges_) {
    if (edge.node) stack.push_back(std::move(edge.node));
  }
  pending_deletes = &stack;
  while (!stack.empty()) {
    std::shared_ptr<Node> node = std::move(stack.back());
    stack.pop_back();
    node.reset();
  }
  pending_deletes = nullptr;
}

uint32_t Node::add_input_metadata(const Tensor& output) {
  input_metadata_.emplace_back(output);
  return static_cast<uint32_t>(input_metadata_.size() - 1);
}

void Node::add_pre_hook(size_t handle, uint32_t slot, GradHook hook, bool runs_last) {
  pre_hooks_.push_back({handle, slot, runs_last, std::move(hook)});
}

bool Node::remove_pre_hook(size_t handle) {
  auto it = std::find_if(pre_hooks_.begin(), pre_hooks_.end(), [&](const PreHook& h) { return h.handle == handle; });
  if (it == pre_hooks_.end()) return false;
  pre_hooks_.erase(it);
  return true;
}

Tensor Node::call_pre_hooks(uint32_t slot, Tensor grad) {
  for (bool last : {false, true}) {
    for (const auto& hook : pre_hooks_) {
      if (hook.slot != slot || hook.runs_last != last) continue;
      Tensor replaced = hook.fn(grad);
      if (replaced.defined()) grad = std::move(replaced);
    }
  }
  return grad;
}

size_t next_hook_handle() { return hook_counter.fetch_add(1, std::memory_order_relaxed) + 1; }

TensorList validate_grads(const Node& node, TensorList grads) {
  BRISK_CHECK(grads.size() == node.num_outputs(),
              "function {} returned an incorrect number of gradients (expected {}, got {})", node.name(),
              node.num_outputs(), grads.size());
  for (size_t i = 0; i < grads.size(); ++i) {
    const Edge& edge = node.next_edge(i);
    Tensor& grad = grads[i];
    if (!edge.valid()) {
      grad = Tensor();
      continue;
    }
    if (!grad.defined()) continue;
    const InputMetadata& meta = edge.node->input_metadata(edge.input_nr);
    if (grad.sizes() != meta.shape) {
      BRISK_CHECK(expandable_to(meta.shape, grad.sizes()),
                  "function {} returned an invalid gradient at index {}: got shape {} but expected shape "
                  "compatible with {}",
                  node.name(), i, grad.sizes(), meta.shape);
      grad = sum_to(grad, meta.shape);
    }
    BRISK_CHECK(grad.device() == meta.device,
                "function {} returned an invalid gradient at index {}: expected device {} but got {}", node.name(), i,
                meta.device, grad.device());
    if (grad.dtype() != meta.dtype) grad = grad.to(meta.dtype);
  }
  return grads;
}

}  // namespace brisk::autograd
