#include "autograd/function.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>

#include "autograd/record.h"

namespace brisk::autograd {

namespace {

// The alternative T of a SavedValue's variant; `accessor` names the caller in the error.
template <typename T, typename Variant>
const T& checked_get(const Variant& value, const char* accessor) {
  static const char* kinds[] = {"nothing", "a bool", "an int", "a double", "a string", "an int list"};
  BRISK_CHECK(std::holds_alternative<T>(value), "SavedValue::{}: the value is {}", accessor, kinds[value.index()]);
  return std::get<T>(value);
}

}  // namespace

bool SavedValue::toBool() const { return checked_get<bool>(value_, "toBool"); }

int64_t SavedValue::toInt() const { return checked_get<int64_t>(value_, "toInt"); }

double SavedValue::toDouble() const {
  if (std::holds_alternative<int64_t>(value_)) return static_cast<double>(std::get<int64_t>(value_));
  return checked_get<double>(value_, "toDouble");
}

const std::string& SavedValue::toStringRef() const { return checked_get<std::string>(value_, "toStringRef"); }

const std::vector<int64_t>& SavedValue::toIntVector() const {
  return checked_get<std::vector<int64_t>>(value_, "toIntVector");
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

  set_next_edges(collect_next_edges(inputs));
  ctx_.node_ = shared_from_this();

  const auto& non_diff = ctx_.non_differentiable_;
  for (Tensor& out : outputs) {
    BRISK_CHECK(out.defined(), "{}: forward returned an undefined tensor", name_);
    bool marked = std::find(non_diff.begin(), non_diff.end(), out.impl()) != non_diff.end();
    out = distinct_from_inputs(out, inputs);
    set_history(out, shared_from_this(), !marked);
  }
  ctx_.saved_ = pack_saved(ctx_.to_save_, outputs);
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
  const size_t expected = is_tensor_arg_.size(), got = returned.size();
  // Undefined gradients past the last argument are allowed, as in PyTorch.
  while (returned.size() > expected && !returned.back().defined()) returned.pop_back();
  BRISK_CHECK(returned.size() == expected,
              "function {} backward returned an incorrect number of gradients (expected {}, got {})", name_, expected,
              got);
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
