#pragma once
// nn::Module: the base of every layer and model, in the shape of PyTorch's C++ frontend.
//
//   struct NetImpl : brisk::nn::Module {
//     NetImpl() {
//       fc1 = register_module("fc1", nn::Linear(784, 64));
//       fc2 = register_module("fc2", nn::Linear(64, 10));
//     }
//     Tensor forward(const Tensor& x) override { return fc2(relu(fc1(x.flatten(1)))); }
//     nn::Linear fc1{nullptr}, fc2{nullptr};
//   };
//   BRISK_MODULE(Net);  // Net: a shared handle to a NetImpl (nn/module_holder.h)
//
// A module owns named parameters (leaves that require grad by default), named buffers
// (state that is saved but not trained, e.g. BatchNorm's running mean) and named child
// modules. Names are listed in registration order and joined with dots through the tree
// ("fc1.weight"), as PyTorch's state_dict keys.
//
// Modules are handled through std::shared_ptr (or a ModuleHolder) and are not copyable:
// copying a module would silently share its parameters.
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "nn/ordered_dict.h"
#include "tensor/error.h"
#include "tensor/tensor.h"

namespace brisk::nn {

class ModuleHolderBase;

// name -> tensor, in registration order: what state_dict() returns and load_state_dict() takes.
using StateDict = OrderedDict<Tensor>;

class Module : public std::enable_shared_from_this<Module> {
 public:
  Module() = default;
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // The type's name for printing: the class name without namespace and "Impl" ("Linear").
  virtual std::string name() const;
  // The name this module was first registered under in a parent ("fc2"); empty for a module
  // that was never registered (the model itself).
  const std::string& name_in_parent() const { return name_in_parent_; }

  // ---- Registration. Names are non-empty, contain no '.', and are unique within a module
  // across parameters, buffers and children. Each returns what it registered. ----

  // `tensor` must be a leaf; its requires_grad is set to `requires_grad`. An undefined tensor
  // registers an absent parameter (e.g. a bias that is switched off): the name is taken but
  // parameters() and state_dict() skip it.
  Tensor register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  Tensor register_buffer(std::string name, Tensor tensor);
  template <typename M>
  std::shared_ptr<M> register_module(std::string name, std::shared_ptr<M> module) {
    add_child(std::move(name), module);
    return module;
  }
  // A holder (nn::Linear, ...) is returned as the same holder type.
  template <typename Holder, typename = std::enable_if_t<std::is_base_of_v<ModuleHolderBase, Holder>>>
  Holder register_module(std::string name, Holder holder) {
    add_child(std::move(name), holder.ptr());
    return holder;
  }

  // ---- Traversal. Tensors and modules reachable twice (shared weights, a child registered
  // in two places) are listed once, at their first name, as in PyTorch. ----

  std::vector<Tensor> parameters(bool recurse = true) const;
  StateDict named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  StateDict named_buffers(bool recurse = true) const;
  // Direct children only.
  std::vector<std::shared_ptr<Module>> children() const;
  OrderedDict<std::shared_ptr<Module>> named_children() const;
  // This module (when include_self) and every descendant, depth first in registration order.
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true);
  // Descendants named by their dotted path; this module (when include_self) is named "".
  OrderedDict<std::shared_ptr<Module>> named_modules(bool include_self = true);
  // Calls fn on this module and every descendant, children first (as torch's apply).
  void apply(const std::function<void(Module&)>& fn);
  // This module as its concrete type, or null when it is another type.
  template <typename T>
  T* as() {
    return dynamic_cast<T*>(this);
  }
  template <typename T>
  const T* as() const {
    return dynamic_cast<const T*>(this);
  }

  // ---- Forward ----

  // images -> logits, or any one tensor to one tensor: a model that declares
  // `Tensor forward(const Tensor& x) override` can be trained through nn::Module& (the
  // training loop of //train, DDP). Every layer of nn/modules whose forward takes one tensor
  // overrides it, and Sequential calls its children through it. The default raises
  // brisk::Error naming the module.
  virtual Tensor forward(const Tensor& input);

  // ---- Forward hooks (torch's register_forward_pre_hook and register_forward_hook) ----
  // They run around each call of this module made through forward_naming_module (a holder's
  // call `fc(x)`, Sequential's calls of its children): the pre-hooks before forward, the hooks
  // after it with the Tensors of its output (forward_output_tensors). A direct call of
  // forward() skips them, as PyTorch runs hooks from a module's __call__, not from its forward.
  // Hooks run in registration order. dist::fully_shard gathers a unit's parameters this way.
  using ForwardPreHook = std::function<void()>;
  using ForwardHook = std::function<void(const std::vector<Tensor>& outputs)>;
  // Each returns a handle for remove_forward_hook().
  size_t register_forward_pre_hook(ForwardPreHook hook);
  size_t register_forward_hook(ForwardHook hook);
  // False when no forward hook of this module has the handle.
  bool remove_forward_hook(size_t handle);
  bool has_forward_hooks() const { return !forward_pre_hooks_.empty() || !forward_hooks_.empty(); }
  void run_forward_pre_hooks() const;
  void run_forward_hooks(const std::vector<Tensor>& outputs) const;

  // ---- Modes ----

  // Sets training mode here and in every descendant (Dropout and BatchNorm read it).
  virtual void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return is_training_; }

  // ---- Moving and gradients ----

  // Moves every parameter and buffer (and every defined .grad) to `device`, and converts the
  // floating-point ones to `dtype`, IN PLACE: each tensor keeps its identity
  // (Tensor::set_data), so the handles users and optimizers already hold see the moved data.
  // Integer buffers (num_batches_tracked) keep their dtype, as in PyTorch.
  void to(Device device, bool non_blocking = false);
  void to(DType dtype);
  void to(Device device, DType dtype, bool non_blocking = false);
  // model.to(memory_format=torch.channels_last): every 4-D parameter and buffer (and its
  // .grad) laid out in `memory_format`, in place as above; other tensors keep theirs.
  void to(MemoryFormat memory_format);
  // Clears the gradients of all parameters: undefined (set_to_none) or zero-filled in place.
  void zero_grad(bool set_to_none = true);

  // ---- State ----

  // Every parameter, then every buffer, of this module, then each child's under its
  // "child." prefix, in registration order (PyTorch's order; unlike parameters(), a tensor
  // reachable under two names is listed under both, as in PyTorch). The tensors are
  // detached handles sharing the module's memory.
  StateDict state_dict() const;
  // Copies the values of `state` into the module's parameters and buffers (converting dtype
  // and device as needed). A shape mismatch is always an error; with strict, so are keys
  // missing from `state` and keys the module does not have. The error lists every offending
  // key at once, with both shapes for mismatches.
  void load_state_dict(const StateDict& state, bool strict = true);

  // ---- Printing ----

  // One line describing this module's own configuration: "Linear(in_features=784,
  // out_features=64, bias=true)". The default prints name().
  virtual void pretty_print(std::ostream& stream) const;

 private:
  friend struct ModuleRegistries;

  void add_child(std::string name, std::shared_ptr<Module> module);
  void check_new_name(const std::string& name, const char* kind) const;
  // What the overloads of to() do: an absent device, dtype or memory format keeps each tensor's.
  void convert(std::optional<Device> device, std::optional<DType> dtype, std::optional<MemoryFormat> memory_format,
               bool non_blocking);

  OrderedDict<Tensor> parameters_;
  OrderedDict<Tensor> buffers_;
  OrderedDict<std::shared_ptr<Module>> children_;
  std::vector<std::pair<size_t, ForwardPreHook>> forward_pre_hooks_;
  std::vector<std::pair<size_t, ForwardHook>> forward_hooks_;
  size_t next_forward_hook_handle_ = 0;
  std::string name_in_parent_;
  bool is_training_ = true;
};

// Throws `error` with a line naming `module` appended (forward_naming_module says which).
[[noreturn]] void rethrow_in_module(const Module& module, const Error& error);

// The Tensors of a forward's output, as forward hooks see them: the Tensor, the vector's
// Tensors, or a tuple's Tensor elements; none for any other type.
inline std::vector<Tensor> forward_output_tensors(const Tensor& output) { return {output}; }
inline std::vector<Tensor> forward_output_tensors(const std::vector<Tensor>& output) { return output; }
template <typename... T>
std::vector<Tensor> forward_output_tensors(const std::tuple<T...>& output) {
  std::vector<Tensor> tensors;
  std::apply(
      [&](const auto&... element) {
        auto add = [&](const auto& e) {
          if constexpr (std::is_same_v<std::decay_t<decltype(e)>, Tensor>) tensors.push_back(e);
        };
        (add(element), ...);
      },
      output);
  return tensors;
}
template <typename T>
std::vector<Tensor> forward_output_tensors(const T&) {
  return {};
}

// Calls `forward` (a call of the module's forward) between the module's forward hooks. A
// brisk::Error raised inside (hooks included) gets a line naming the module appended, its
// name in its parent and its configuration ("\n  in fc2: Linear(in_features=64,
// out_features=10, bias=true)"; the model itself has no name: "\n  in Net"). Each enclosing
// module called the same way adds its own line, innermost first, so an error deep inside a
// model says which layer it came from. ModuleHolder's call and the containers' calls of their
// modules go through here.
template <typename F>
auto forward_naming_module(const Module& module, F&& forward) -> decltype(std::forward<F>(forward)()) {
  using Output = decltype(std::forward<F>(forward)());
  try {
    if (!module.has_forward_hooks()) return std::forward<F>(forward)();
    module.run_forward_pre_hooks();
    Output output = std::forward<F>(forward)();
    module.run_forward_hooks(forward_output_tensors(output));
    return std::forward<Output>(output);
  } catch (const Error& error) {
    rethrow_in_module(module, error);
  }
}

// Prints the module tree as PyTorch does:
//   Net(
//     (fc1): Linear(in_features=784, out_features=64, bias=true)
//     ...
//   )
std::ostream& operator<<(std::ostream& stream, const Module& module);

}  // namespace brisk::nn
