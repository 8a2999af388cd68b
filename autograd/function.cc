#include "autograd/function.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>

#include "autograd/inplace.h"
#include "autograd/record.h"
#include "tensor/native/ops.h"

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

const Tensor& SavedVariables::operator[](size_t index) const {
  BRISK_CHECK(index < tensors_.size(),
              "function {}: get_saved_variables()[{}] is out of range: forward saved {} tensor{} with "
              "save_for_backward",
              function_, index, tensors_.size(), tensors_.size() == 1 ? "" : "s");
  return tensors_[index];
}

SavedVariables AutogradContext::get_saved_variables() const {
  std::shared_ptr<Node> node = node_.lock();
  TensorList out;
  out.reserve(saved_.size());
  for (const SavedTensor& s : saved_) out.push_back(s.unpack(node));
  // Only a recorded Function saves tensors, so without its node there are none to name it for.
  return SavedVariables(node ? node->name() : std::string("(a Function that recorded no history)"), std::move(out));
}

void AutogradContext::mark_non_differentiable(const TensorList& outputs) {
  for (const Tensor& t : outputs) non_differentiable_.push_back(t.impl());
}

void AutogradContext::mark_dirty(const TensorList& inputs) {
  for (const Tensor& t : inputs) dirty_.push_back(t.impl());
}

CustomFunctionNode::CustomFunctionNode(std::string name, BackwardFn backward, bool once_differentiable,
                                       std::vector<bool> is_tensor_arg, TensorList inputs)
    : name_(std::move(name)),
      backward_(backward),
      once_differentiable_(once_differentiable),
      is_tensor_arg_(std::move(is_tensor_arg)),
      inputs_(std::move(inputs)) {
  for (const Tensor& t : inputs_) {
    ctx_.needs_input_grad_.push_back(needs_history({t}));
    input_versions_.push_back(t.defined() ? t.version() : 0);
  }
}

namespace {

bool contains(const std::vector<const TensorImpl*>& impls, const Tensor& t) {
  return std::find(impls.begin(), impls.end(), t.impl()) != impls.end();
}

}  // namespace

void CustomFunctionNode::check_modified_inputs(const TensorList& inputs, const TensorList& outputs, bool recording) {
  size_t argument = 0;  // the forward argument of inputs[i], as backward counts them
  for (size_t i = 0; i < inputs.size(); ++i, ++argument) {
    while (!is_tensor_arg_[argument]) ++argument;
    const Tensor& input = inputs[i];
    if (!input.defined()) continue;
    if (contains(ctx_.dirty_, input)) {
      BRISK_CHECK(std::any_of(outputs.begin(), outputs.end(), [&](const Tensor& out) { return out.is_same(input); }),
                  "function {}: forward argument {} ({}) was marked dirty with mark_dirty but is not among the "
                  "outputs; return the tensor forward modified",
                  name_, argument, input.describe());
      input.bump_version();
      continue;
    }
    BRISK_CHECK(!recording || !input.requires_grad() || input.version() == input_versions_[i],
                "function {}: forward modified argument {} ({}) in place without ctx->mark_dirty; its gradient "
                "would be wrong. Call ctx->mark_dirty({{...}}) and return it as an output, or modify a clone()",
                name_, argument, input.describe());
  }
}

TensorList CustomFunctionNode::record_outputs(TensorList outputs) {
  TensorList inputs = std::move(inputs_);
  const bool recording = needs_history(inputs);
  check_modified_inputs(inputs, outputs, recording);
  if (!recording) return outputs;

  set_next_edges(collect_next_edges(inputs));
  ctx_.node_ = shared_from_this();

  for (Tensor& out : outputs) {
    BRISK_CHECK(out.defined(), "{}: forward returned an undefined tensor", name_);
    bool differentiable = !contains(ctx_.non_differentiable_, out);
    if (contains(ctx_.dirty_, out)) {
      check_inplace(out, name_.c_str());
      rebase_onto(out, shared_from_this());
    } else {
      out = distinct_from_inputs(out, inputs);
      set_history(out, shared_from_this(), differentiable);
    }
  }
  ctx_.saved_ = pack_saved(ctx_.to_save_, outputs);
  ctx_.to_save_.clear();
  return outputs;
}

TensorList CustomFunctionNode::call_backward(TensorList grads) {
  if (!once_differentiable_ || !GradMode::is_enabled()) return backward_(&ctx_, std::move(grads));
  // Under create_graph: computed without history, the gradients get a node whose backward is
  // the error, reached from the incoming gradients and from this Function's inputs.
  std::vector<Edge> edges = collect_next_edges(grads);
  edges.insert(edges.end(), next_edges().begin(), next_edges().end());
  TensorList returned;
  {
    NoGradGuard no_grad;
    returned = backward_(&ctx_, std::move(grads));
  }
  if (std::none_of(edges.begin(), edges.end(), [](const Edge& e) { return e.valid(); })) return returned;
  auto error = std::make_shared<ClosureNode>("DelayedError", [name = name_](const BackwardArgs&) -> TensorList {
    BRISK_FAIL(
        "function {} is once_differentiable: its backward cannot be differentiated, so a gradient of its gradient "
        "(create_graph=true, then a gradient of that gradient) is not available",
        name);
  });
  error->set_next_edges(std::move(edges));
  for (Tensor& g : returned) {
    if (!g.defined() || !g.is_floating_point()) continue;
    g = native::alias(g);
    set_history(g, error);
  }
  return returned;
}

TensorList CustomFunctionNode::apply(TensorList&& grads) {
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined() && ctx_.materialize_grads_) grads[i] = input_metadata(i).zeros();
    if (grads[i].defined() && ctx_.contiguous_grads_) grads[i] = grads[i].contiguous();
  }
  TensorList returned = call_backward(std::move(grads));
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
