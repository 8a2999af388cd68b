#include "autograd/record.h"

#include <algorithm>

#include "autograd/accumulate_grad.h"
#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "tensor/autograd_meta.h"
#include "tensor/native/ops.h"

namespace brisk::autograd {

std::vector<Edge> collect_next_edges(const TensorList& inputs) {
  std::vector<Edge> edges;
  edges.reserve(inputs.size());
  for (const Tensor& input : inputs) edges.push_back(gradient_edge(input));
  return edges;
}

Tensor distinct_from_inputs(const Tensor& output, const TensorList& inputs) {
  bool is_input = output.defined() &&
                  std::any_of(inputs.begin(), inputs.end(), [&](const Tensor& in) { return in.is_same(output); });
  return is_input ? native::alias(output) : output;
}

void set_history(const Tensor& output, const std::shared_ptr<Node>& node, bool differentiable) {
  BRISK_CHECK(output.defined(), "{}: cannot record history for an undefined output", node->name());
  uint32_t slot = node->add_input_metadata(output);
  if (!differentiable || !output.is_floating_point()) return;
  AutogradMeta& meta = output.autograd_meta();
  meta.requires_grad = true;
  meta.grad_fn = node;
  meta.output_nr = slot;
}

std::vector<SavedTensor> pack_saved(const TensorList& saved, const TensorList& outputs) {
  std::vector<SavedTensor> packed;
  packed.reserve(saved.size());
  for (const Tensor& t : saved) {
    auto it =
        std::find_if(outputs.begin(), outputs.end(), [&](const Tensor& out) { return t.defined() && t.is_same(out); });
    bool is_output = it != outputs.end();
    packed.emplace_back(t, is_output, is_output ? static_cast<uint32_t>(it - outputs.begin()) : 0);
  }
  return packed;
}

namespace {

std::shared_ptr<ClosureNode> make_node(const char* name, const TensorList& inputs, BackwardFn fn) {
  auto node = std::make_shared<ClosureNode>(name, std::move(fn));
  node->set_next_edges(collect_next_edges(inputs));
  return node;
}

}  // namespace

TensorList ClosureNode::apply(TensorList&& grads) {
  if (std::none_of(grads.begin(), grads.end(), [](const Tensor& g) { return g.defined(); })) {
    return TensorList(num_outputs());
  }

  BackwardArgs args;
  args.grads = std::move(grads);
  for (size_t i = 0; i < args.grads.size(); ++i) {
    if (!args.grads[i].defined()) args.grads[i] = input_metadata(i).zeros();
  }
  std::shared_ptr<Node> self = shared_from_this();
  args.saved.reserve(saved_.size());
  for (const SavedTensor& s : saved_) args.saved.push_back(s.unpack(self));
  args.needs_grad.reserve(num_outputs());
  for (size_t i = 0; i < num_outputs(); ++i) args.needs_grad.push_back(Engine::wants_gradient(*this, i));
  return fn_(args);
}

void ClosureNode::release_saved() {
  for (SavedTensor& s : saved_) s.release();
}

namespace {
template <typename Range>
bool any_requires_grad(const Range& inputs) {
  return GradMode::is_enabled() &&
         std::any_of(inputs.begin(), inputs.end(), [](const Tensor& t) { return t.defined() && t.requires_grad(); });
}
}  // namespace

bool needs_history(std::initializer_list<Tensor> inputs) { return any_requires_grad(inputs); }
bool needs_history(const TensorList& inputs) { return any_requires_grad(inputs); }

TensorList attach_history(const char* name, TensorList outputs, const TensorList& inputs, const TensorList& saved,
                          BackwardFn fn) {
  for (Tensor& out : outputs) out = distinct_from_inputs(out, inputs);
  auto node = make_node(name, inputs, std::move(fn));
  for (const Tensor& out : outputs) set_history(out, node);
  node->set_saved(pack_saved(saved, outputs));
  return outputs;
}

void rebase_history_now(const char* name, const Tensor& self, const TensorList& inputs, const TensorList& saved,
                        BackwardFn fn) {
  auto node = make_node(name, inputs, std::move(fn));
  rebase_onto(self, node);
  node->set_saved(pack_saved(saved, {self}));
}

void rebase_onto(const Tensor& self, const std::shared_ptr<Node>& node) {
  AutogradMeta& meta = self.autograd_meta();
  bool move_retain_hook = meta.retains_grad && meta.grad_fn != nullptr;
  if (move_retain_hook) meta.grad_fn->remove_pre_hook(meta.retain_grad_hook);
  set_history(self, node);
  if (move_retain_hook) {
    meta.retains_grad = false;
    install_retain_grad_hook(self);
  }
}

void install_retain_grad_hook(const Tensor& t) {
  AutogradMeta& meta = t.autograd_meta();
  if (meta.retains_grad) return;
  std::weak_ptr<TensorImpl> weak = t.weak_impl();
  GradHook hook = [weak](const Tensor& grad) {
    if (std::shared_ptr<TensorImpl> impl = weak.lock()) {
      Tensor& stored = Tensor(impl).autograd_meta().grad;
      if (!stored.defined()) {
        stored = GradMode::is_enabled() ? grad : native::clone(grad);
      } else {
        stored = stored + grad;
      }
    }
    return Tensor();
  };
  size_t handle = next_hook_handle();
  t.grad_fn()->add_pre_hook(handle, t.output_nr(), std::move(hook), /*runs_last=*/true);
  meta.retains_grad = true;
  meta.retain_grad_hook = handle;
}

}  // namespace brisk::autograd
