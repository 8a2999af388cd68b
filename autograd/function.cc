#include "autograd/function.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>

#include "autograd/accumulate_grad.h"
#include "autograd/record.h"
#include "tensor/autograd_meta.h"
#include "tensor/native/ops.h"

namespace brisk::autograd {

namespace {
const char* kind_name(size_t index) {
  static const char* names[] = {"nothing", "a bool", "an int", "a double", "a string", "an int list"};
  return names[index];
}
}  // namespace

bool SavedValue::toBool() const {
  BRISK_CHECK(std::holds_alternative<bool>(value_), "SavedValue::toBool: the value is {}", kind_name(value_.index()));
  return std::get<bool>(value_);
}

int64_t SavedValue::toInt() const {
  BRISK_CHECK(std::holds_alternative<int64_t>(value_), "SavedValue::toInt: the value is {}", kind_name(value_.index()));
  return std::get<int64_t>(value_);
}

double SavedValue::toDouble() const {
  if (std::holds_alternative<int64_t>(value_)) return static_cast<double>(std::get<int64_t>(value_));
  BRISK_CHECK(std::holds_alternative<double>(value_), "SavedValue::toDouble: the value is {}",
              kind_name(value_.index()));
  return std::get<double>(value_);
}

const std::string& SavedValue::toStringRef() const {
  BRISK_CHECK(std::holds_alternative<std::string>(value_), "SavedValue::toStringRef: the value is {}",
              kind_name(value_.index()));
  return std::get<std::string>(value_);
}

const std::vector<int64_t>& SavedValue::toIntVector() const {
  BRISK_CHECK(std::holds_alternative<std::vector<int64_t>>(value_), "SavedValue::toIntVector: the value is {}",
              kind_name(value_.index()));
  return std::get<std::vector<int64_t>>(value_);
}

TensorList AutogradContext::get_saved_variables() const {
  std::shared_ptr<Node> node = node_.lock();
  TensorList out;
  out.reserve(saved_.size());
  for (const SavedTensor& s : saved_) out.push_back(s.unpack(node));
  return out;
}

void AutogradContext::mark_non_differentiable(const TensorList& outputs) {
  for (const Tensor& t : outputs) non_differentiable_.push_back(t.impl());
}

CustomFunctionNode::CustomFunctionNode(std::string name, BackwardFn backward, std::vector<bool> is_tensor_arg,
                                       TensorList inputs)
    : name_(std::move(name)),
      backward_(backward),
      is_tensor_arg_(std::move(is_tensor_arg)),
      inputs_(std::move(inputs)) {
  for (const Tensor& t : inputs_) ctx_.needs_input_grad_.push_back(needs_history({t}));
}

TensorList CustomFunctionNode::record_outputs(TensorList outputs) {
  TensorList inputs = std::move(inputs_);
  if (!needs_history(inputs)) return outputs;

  std::vector<Edge> edges;
  for (const Tensor& t : inputs) edges.push_back(gradient_edge(t));
  set_next_edges(std::move(edges));
  ctx_.node_ = shared_from_this();

  auto& non_diff = ctx_.non_differentiable_;
  for (Tensor& out : outputs) {
    BRISK_CHECK(out.defined(), "{}: forward returned an undefined tensor", name_);
    bool differentiable =
        out.is_floating_point() && std::find(non_diff.begin(), non_diff.end(), out.impl()) == non_diff.end();
    // An input returned as is must keep its own history: the output is a new handle.
    bool is_input = std::any_of(inputs.begin(), inputs.end(), [&](const Tensor& in) { return in.is_same(out); });
    if (is_input) out = native::alias(out);
    uint32_t slot = add_input_metadata(out);
    if (!differentiable) continue;
    AutogradMeta& meta = out.autograd_meta();
    meta.requires_grad = true;
    meta.grad_fn = shared_from_this();
    meta.output_nr = slot;
  }
  for (const Tensor& t : ctx_.to_save_) {
    auto it =
        std::find_if(outputs.begin(), outputs.end(), [&](const Tensor& out) { return t.defined() && out.is_same(t); });
    bool is_output = it != outputs.end();
    ctx_.saved_.emplace_back(t, is_output, is_output ? static_cast<uint32_t>(it - outputs.begin()) : 0);
  }
  ctx_.to_save_.clear();
  return outputs;
}

TensorList CustomFunctionNode::apply(TensorList&& grads) {
  if (ctx_.materialize_grads_) {
    for (size_t i = 0; i < grads.size(); ++i) {
      if (!grads[i].defined()) grads[i] = input_metadata(i).zeros();
    }
  }
  TensorList returned = backward_(&ctx_, std::move(grads));
  size_t expected = is_tensor_arg_.size();
  for (size_t i = expected; i < returned.size(); ++i) {
    BRISK_CHECK(!returned[i].defined(),
                "function {} backward returned an incorrect number of gradients (expected {}, got {})", name_, expected,
                returned.size());
  }
  if (returned.size() > expected) returned.resize(expected);
  BRISK_CHECK(returned.size() == expected,
              "function {} backward returned an incorrect number of gradients (expected {}, got {})", name_, expected,
              returned.size());
  TensorList grads_for_inputs;
  for (size_t i = 0; i < expected; ++i) {
    if (is_tensor_arg_[i]) {
      grads_for_inputs.push_back(std::move(returned[i]));
    } else {
      BRISK_CHECK(!returned[i].defined(),
                  "function {} backward returned a gradient at position {}, but forward argument {} is not a tensor",
                  name_, i, i);
    }
  }
  return grads_for_inputs;
}

void CustomFunctionNode::release_saved() {
  for (SavedTensor& s : ctx_.saved_) s.release();
}

std::string demangle(const char* mangled) {
  int status = 0;
  char* readable = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  if (status != 0 || readable == nullptr) return mangled;
  std::string name(readable);
  std::free(readable);
  return name;
}

}  // namespace brisk::autograd
