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
// forward runs with grad mode off and may return a Tensor or a TensorList; the profiler records
// it as an op named after the Function. backward gets one gradient per output, contiguous
// (unless set_contiguous_grads(false)), zeros where none flowed (unless
// set_materialize_grads(false)), and returns one gradient per forward argument (undefined for
// arguments that are not tensors; a TensorList argument counts as one argument per element).
//
// A forward that modifies an input that requires grad must say so with mark_dirty and return
// that input; otherwise apply raises an error naming the Function and the argument. A Function
// whose backward is not itself differentiable (a raw kernel) declares
//
//   static constexpr bool once_differentiable = true;
//
// and a gradient of its gradient (create_graph, then grad again) is then an error naming it,
// instead of a silent zero.
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
#include "profiler/record.h"

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

// What get_saved_variables returns: the saved tensors, usable as a TensorList, whose
// operator[] checks the index (the error names the Function and how many were saved).
class SavedVariables {
 public:
  SavedVariables(std::string function, TensorList tensors)
      : function_(std::move(function)), tensors_(std::move(tensors)) {}

  const Tensor& operator[](size_t index) const;
  size_t size() const { return tensors_.size(); }
  bool empty() const { return tensors_.empty(); }
  TensorList::const_iterator begin() const { return tensors_.begin(); }
  TensorList::const_iterator end() const { return tensors_.end(); }

  operator const TensorList&() const& { return tensors_; }
  operator TensorList() && { return std::move(tensors_); }

 private:
  std::string function_;
  TensorList tensors_;
};

class AutogradContext {
 public:
  // Tensors for backward; may include the inputs and the outputs of forward.
  void save_for_backward(TensorList tensors) { to_save_ = std::move(tensors); }
  // The saved tensors; errors if one was modified in place since, or after the graph was freed.
  SavedVariables get_saved_variables() const;
  // Outputs of forward that get no gradient (e.g. indices).
  void mark_non_differentiable(const TensorList& outputs);
  // Inputs forward modified in place. Each must also be returned as an output: its history
  // then continues through this Function, as for a built-in in-place op.
  void mark_dirty(const TensorList& inputs);
  // With false, backward sees undefined tensors (instead of zeros) where no gradient flowed.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  // With false, backward gets the gradients with whatever strides they arrive in (an expanded
  // gradient of a sum has stride 0), instead of contiguous copies: for a backward that reads
  // them through strides, or only with tensor ops.
  void set_contiguous_grads(bool value) { contiguous_grads_ = value; }
  // Whether the i-th tensor input of forward needs a gradient.
  bool needs_input_grad(size_t index) const { return index < needs_input_grad_.size() && needs_input_grad_[index]; }

  std::unordered_map<std::string, SavedValue> saved_data;

 private:
  friend class CustomFunctionNode;

  TensorList to_save_;
  std::vector<SavedTensor> saved_;
  std::weak_ptr<Node> node_;
  std::vector<const TensorImpl*> non_differentiable_;
  std::vector<const TensorImpl*> dirty_;
  std::vector<bool> needs_input_grad_;
  bool materialize_grads_ = true;
  bool contiguous_grads_ = true;
};

// The node a custom function records. Function<T>::apply builds it; it calls T::backward.
class CustomFunctionNode final : public Node {
 public:
  using BackwardFn = TensorList (*)(AutogradContext*, TensorList);

  CustomFunctionNode(std::string name, BackwardFn backward, bool once_differentiable, std::vector<bool> is_tensor_arg,
                     TensorList inputs);

  std::string name() const override { return name_; }
  TensorList apply(TensorList&& grads) override;
  void release_saved() override;

  AutogradContext& ctx() { return ctx_; }
  // After forward: checks the inputs forward modified against mark_dirty, connects the outputs
  // to this node (when history is recorded) and packs the saved tensors. Returns the outputs
  // as the caller should see them.
  TensorList record_outputs(TensorList outputs);

 private:
  // Errors for an input marked dirty and not returned, or (when `recording` history) for an
  // input that requires grad modified without mark_dirty; bumps the version of each dirty
  // input, as an in-place op does.
  void check_modified_inputs(const TensorList& inputs, const TensorList& outputs, bool recording);
  // T::backward; for a once-differentiable Function under create_graph, its gradients get a
  // node that refuses to be differentiated.
  TensorList call_backward(TensorList grads);

  std::string name_;
  BackwardFn backward_;
  bool once_differentiable_;
  std::vector<bool> is_tensor_arg_;       // one entry per forward argument (TensorList: per element)
  TensorList inputs_;                     // the tensor arguments, until forward has run
  std::vector<uint32_t> input_versions_;  // their versions before forward
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
  // Declare true in T when its backward cannot be differentiated (see the top of this file).
  static constexpr bool once_differentiable = false;

  template <typename... Args>
  static auto apply(Args&&... args) {
    static const std::string name = demangle(typeid(T).name());
    profiler::RecordScope scope(profiler::Category::Op, name);
    std::vector<bool> is_tensor_arg;
    TensorList inputs;
    detail::collect_args(is_tensor_arg, inputs, args...);
    CustomFunctionNode::BackwardFn backward = [](AutogradContext* ctx, TensorList grads) -> TensorList {
      return T::backward(ctx, std::move(grads));
    };
    auto node = std::make_shared<CustomFunctionNode>(name, backward, T::once_differentiable, std::move(is_tensor_arg),
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
