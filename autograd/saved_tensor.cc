#include "autograd/saved_tensor.h"

#include "autograd/node.h"
#include "autograd/saved_tensors_hooks.h"
#include "tensor/autograd_meta.h"
#include "tensor/native/ops.h"

namespace brisk::autograd {

SavedTensor::SavedTensor(const Tensor& t, bool is_output, uint32_t output_nr)
    : output_nr_(output_nr), is_output_(is_output), was_defined_(t.defined()) {
  if (!was_defined_) return;
  saved_version_ = t.version();
  requires_grad_ = t.requires_grad();
  is_leaf_ = requires_grad_ && !t.grad_fn();
  if (!is_output && t.grad_fn()) {
    producer_ = t.grad_fn();
    producer_output_nr_ = t.output_nr();
  }
  Tensor kept = is_output ? native::alias(t) : t;
  hooks_ = current_saved_tensors_hooks();
  if (hooks_) {
    packed_ = hooks_->pack(kept);
  } else {
    data_ = std::move(kept);
  }
}

std::string SavedTensor::describe_producer(const std::shared_ptr<Node>& saved_for) const {
  if (is_output_ && saved_for) return fmt::format("which is output {} of {}", output_nr_, saved_for->name());
  if (std::shared_ptr<Node> producer = producer_.lock()) {
    return fmt::format("which is output {} of {}", producer_output_nr_, producer->name());
  }
  if (!requires_grad_) return "an input that does not require grad";
  return is_leaf_ ? "a leaf" : "the output of a node that has been freed";
}

Tensor SavedTensor::unpack(const std::shared_ptr<Node>& saved_for) const {
  BRISK_CHECK(!released_,
              "Trying to backward through the graph a second time (or directly access saved tensors after they "
              "have already been freed). Saved intermediate values of the graph are freed when you call "
              "backward() or autograd::grad(). Specify retain_graph=true if you need to backward through the "
              "graph a second time or if you need to access saved tensors after calling backward.");
  if (!was_defined_) return Tensor();
  const Tensor data = hooks_ ? hooks_->unpack(packed_) : data_;
  BRISK_CHECK(data.defined(), "a saved-tensors unpack hook returned an undefined tensor");
  BRISK_CHECK(hooks_ || data.version() == saved_version_,
              "one of the variables needed for gradient computation has been modified by an inplace operation: "
              "[{} {}], {}, is at version {}; expected version {} instead. It was saved for the backward of {} and "
              "modified in place after that. Hint: clone() the tensor before modifying it in place, or modify a "
              "copy.",
              data.dtype(), data.sizes(), describe_producer(saved_for), data.version(), saved_version_,
              saved_for ? saved_for->name() : std::string("a node that no longer exists"));
  if (!is_output_ || !saved_for) return data;
  Tensor out = native::alias(data);
  AutogradMeta& meta = out.autograd_meta();
  meta.requires_grad = true;
  meta.grad_fn = saved_for;
  meta.output_nr = output_nr_;
  return out;
}

void SavedTensor::release() {
  data_ = Tensor();
  packed_.reset();
  hooks_.reset();
  released_ = true;
}

}  // namespace brisk::autograd
