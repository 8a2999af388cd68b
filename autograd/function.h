#pragma once
// Custom differentiable functions, in the shape of PyTorch's C++ frontend:
//
//   struct MulConstant : brisk::autograd::Function<MulConstant> {
//     static Tensor forward(AutogradContext* ctx, Tensor x, double c) {
//       ctx->saved_data["c"] = c;
//       return x * c;
//     }
//     static TensorList backward(AutogradContext* ctx, TensorList grad_outputs) {
//       return {grad_outputs[0] * ctx->saved_data["c"].toDouble(), Tensor()};
//     }
//   };
//   Tensor y = MulConstant::apply(x, 2.0);
//
// forward runs with grad mode off and may return a Tensor or a TensorList. backward gets one
// gradient per output (zeros where none flowed, unless set_materialize_grads(false)) and
// returns one gradient per forward argument (undefined for arguments that are not tensors; a
// TensorList argument counts as one argument per element).
#include <cstdint>
#include <memory>
#include <string>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "autograd/saved_tensor.h"

namespace brisk::autograd {

// A small non-tensor value a custom function keeps for backward.
class SavedValue {
 public:
  SavedValue() = default;
  SavedValue(bool v) : value_(v) {}
  SavedValue(int v) : value_(static_cast<int64_t>(v)) {}
  SavedValue(int64_t v) : value_(v) {}
  SavedValue(double v) : value_(v) {}
  SavedValue(const char* v) : value_(std::string(v)) {}
  SavedValue(std::string v) : value_(std::move(v)) {}
  SavedValue(std::vector<int64_t> v) : value_(std::move(v)) {}

  bool toBool() const;
  int64_t toInt() const;
  double toDouble() const;  // also converts an int
  const std::string& toStringRef() const;
  const std::vector<int64_t>& toIntVector() const;

 private:
  std::variant<std::monostate, bool, int64_t, double, std::string, std::vector<int64_t>> value_;
};

class AutogradContext {
 public:
  // Tensors for backward; may include the inputs and the outputs of forward.
  void save_for_backward(TensorList tensors) { to_save_ = std::move(tensors); }
  // The saved tensors; errors if one was modified in place since, or after the graph was freed.
  TensorList get_saved_variables() const;
  // Outputs of forward that get no gradient (e.g. indices).
  void mark_non_differentiable(const TensorList& outputs);
  // With false, backward sees undefined tensors (instead of zeros) where no gradient flowed.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  // Whether the i-th tensor input of forward needs a gradient.
  bool needs_input_grad(size_t index) const { return index < needs_input_grad_.size() && needs_input_grad_[index]; }

  std::unordered_map<std::string, SavedValue> saved_data;

 private:
  friend class CustomFunctionNode;

  TensorList to_save_;
  std::vector<SavedTensor> saved_;
  std::weak_ptr<Node> node_;
  std::vector<const TensorImpl*> non_differentiable_;
  std::vector<bool> needs_input_grad_;
  bool materialize_grads_ = true;
};

// The node a custom function records. Function<T>::apply builds it; it calls T::backward.
class CustomFunctionNode final : public Node {
 public:
  using BackwardFn = TensorList (*)(AutogradContext*, TensorList);

  CustomFunctionNode(std::string name, BackwardFn backward, std::vector<bool> is_tensor_arg, TensorList inputs);

  std::string name() const override { return name_; }
  TensorList apply(TensorList&& grads) override;
  void release_saved() override;

  AutogradContext& ctx() { return ctx_; }
  // After forward: connects the outputs to this node (when history is recorded) and packs
  // the saved tensors. Returns the outputs as the caller should see them.
  TensorList record_outputs(TensorList outputs);

 private:
  std::string name_;
  BackwardFn backward_;
  std::vector<bool> is_tensor_arg_;  // one entry per forward argument (TensorList: per element)
  TensorList inputs_;                // the tensor arguments, until forward has run
  AutogradContext ctx_;
};

// The readable name of a C++ type (for node names).
std::string demangle(const char* mangled);

namespace detail {

inline void collect_args(std::vector<bool>&, TensorList&) {}

template <typename First, typename... Rest>
void collect_args(std::vector<bool>& is_tensor, TensorList& tensors, const First& first, const Rest&... rest) {
  using Arg = std::decay_t<First>;
  if constexpr (std::is_same_v<Arg, Tensor>) {
    is_tensor.push_back(true);
    tensors.push_back(first);
  } else if constexpr (std::is_same_v<Arg, TensorList>) {
    for (const Tensor& t : first) {
      is_tensor.push_back(true);
      tensors.push_back(t);
    }
  } else {
    is_tensor.push_back(false);
  }
  collect_args(is_tensor, tensors, rest...);
}

}  // namespace detail

template <class T>
struct Function {
  template <typename... Args>
  static auto apply(Args&&... args) {
    std::vector<bool> is_tensor_arg;
    TensorList inputs;
    detail::collect_args(is_tensor_arg, inputs, args...);
    CustomFunctionNode::BackwardFn backward = [](AutogradContext* ctx, TensorList grads) -> TensorList {
      return T::backward(ctx, std::move(grads));
    };
    auto node = std::make_shared<CustomFunctionNode>(demangle(typeid(T).name()), backward, std::move(is_tensor_arg),
                                                     std::move(inputs));
    using Output = decltype(T::forward(&node->ctx(), std::forward<Args>(args)...));
    static_assert(std::is_same_v<Output, Tensor> || std::is_same_v<Output, TensorList>,
                  "Function::forward must return a Tensor or a TensorList");
    Output output;
    {
      NoGradGuard no_grad;
      output = T::forward(&node->ctx(), std::forward<Args>(args)...);
    }
    if constexpr (std::is_same_v<Output, Tensor>) {
      return node->record_outputs({std::move(output)})[0];
    } else {
      return node->record_outputs(std::move(output));
    }
  }
};

}  // namespace brisk::autograd
