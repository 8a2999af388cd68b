#include "nn/module.h"

#include <algorithm>
#include <ostream>
#include <sstream>
#include <typeinfo>
#include <unordered_set>

#include "autograd/accumulate_grad.h"
#include "autograd/function.h"
#include "autograd/grad_mode.h"
#include "tensor/native/ops.h"

namespace brisk::nn {

// The registries, for the traversal helpers of this file.
struct ModuleRegistries {
  static const StateDict& parameters(const Module& m) { return m.parameters_; }
  static const StateDict& buffers(const Module& m) { return m.buffers_; }
  static const OrderedDict<std::shared_ptr<Module>>& children(const Module& m) { return m.children_; }
};

namespace {

using Registry = const StateDict& (*)(const Module&);

// Visits (dotted name, tensor) of the given registries through the tree, each module's own in
// the registries' order before its children's, skipping absent (undefined) tensors.
template <typename Visit>
void visit_tensors(const Module& module, const std::string& prefix, bool recurse,
                   std::initializer_list<Registry> registries, const Visit& visit) {
  for (Registry registry : registries) {
    for (const auto& [name, tensor] : registry(module)) {
      if (tensor.defined()) visit(prefix + name, tensor);
    }
  }
  if (!recurse) return;
  for (const auto& [name, child] : ModuleRegistries::children(module)) {
    visit_tensors(*child, prefix + name + ".", true, registries, visit);
  }
}

// The tensors of one registry, each listed once, at its first name.
StateDict collect(const Module& module, bool recurse, Registry registry) {
  StateDict out;
  std::unordered_set<const TensorImpl*> seen;
  visit_tensors(module, "", recurse, {registry}, [&](const std::string& name, const Tensor& t) {
    if (seen.insert(t.impl()).second) out.insert(name, t);
  });
  return out;
}

// Indents every line after the first by two spaces (nested module printing).
std::string indent(const std::string& text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n') out += "  ";
  }
  return out;
}

}  // namespace

Tensor Module::forward(const Tensor&) {
  BRISK_FAIL(
      "{}: no forward(const Tensor&) to call through nn::Module (declare `Tensor forward(const Tensor& x) override`)",
      name());
}

std::string Module::name() const {
  std::string full = autograd::demangle(typeid(*this).name());
  size_t colon = full.rfind("::");
  std::string name = colon == std::string::npos ? full : full.substr(colon + 2);
  const std::string suffix = "Impl";
  if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
    name.resize(name.size() - suffix.size());
  }
  return name;
}

void Module::check_new_name(const std::string& name, const char* kind) const {
  BRISK_CHECK(!name.empty(), "{}: register_{}: the name must not be empty", this->name(), kind);
  BRISK_CHECK(name.find('.') == std::string::npos, "{}: register_{}: the name \"{}\" must not contain '.'",
              this->name(), kind, name);
  BRISK_CHECK(!parameters_.contains(name) && !buffers_.contains(name) && !children_.contains(name),
              "{}: register_{}: the name \"{}\" is already taken by a parameter, buffer or submodule", this->name(),
              kind, name);
}

Tensor Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  check_new_name(name, "parameter");
  if (tensor.defined()) {
    BRISK_CHECK(tensor.is_leaf(), "{}: register_parameter: \"{}\" must be a leaf tensor (detach() it), got a {}",
                this->name(), name, tensor.describe());
    tensor.requires_grad_(requires_grad);
  }
  parameters_.insert(std::move(name), tensor);
  return tensor;
}

Tensor Module::register_buffer(std::string name, Tensor tensor) {
  check_new_name(name, "buffer");
  buffers_.insert(std::move(name), tensor);
  return tensor;
}

void Module::add_child(std::string name, std::shared_ptr<Module> module) {
  check_new_name(name, "module");
  BRISK_CHECK(module != nullptr, "{}: register_module: the module \"{}\" is empty (null)", this->name(), name);
  BRISK_CHECK(module.get() != this, "{}: register_module: a module cannot be its own child (\"{}\")", this->name(),
              name);
  // A module registered in two places keeps its first name, as traversal lists it.
  if (module->name_in_parent_.empty()) module->name_in_parent_ = name;
  children_.insert(std::move(name), std::move(module));
}

std::vector<Tensor> Module::parameters(bool recurse) const { return named_parameters(recurse).values(); }
StateDict Module::named_parameters(bool recurse) const {
  return collect(*this, recurse, &ModuleRegistries::parameters);
}
std::vector<Tensor> Module::buffers(bool recurse) const { return named_buffers(recurse).values(); }
StateDict Module::named_buffers(bool recurse) const { return collect(*this, recurse, &ModuleRegistries::buffers); }

std::vector<std::shared_ptr<Module>> Module::children() const { return children_.values(); }
OrderedDict<std::shared_ptr<Module>> Module::named_children() const { return children_; }

OrderedDict<std::shared_ptr<Module>> Module::named_modules(bool include_self) {
  OrderedDict<std::shared_ptr<Module>> out;
  std::unordered_set<const Module*> seen;
  std::function<void(const std::string&, const std::shared_ptr<Module>&)> walk =
      [&](const std::string& prefix, const std::shared_ptr<Module>& module) {
        for (const auto& [name, child] : module->children_) {
          if (!seen.insert(child.get()).second) continue;
          std::string path = prefix.empty() ? name : prefix + "." + name;
          out.insert(path, child);
          walk(path, child);
        }
      };
  // shared_from_this needs the module to be owned by a shared_ptr; a module on the stack
  // is listed through a non-owning alias instead.
  std::shared_ptr<Module> self = weak_from_this().lock();
  if (!self) self = std::shared_ptr<Module>(std::shared_ptr<Module>(), this);
  seen.insert(this);
  if (include_self) out.insert("", self);
  walk("", self);
  return out;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) { return named_modules(include_self).values(); }

void Module::apply(const std::function<void(Module&)>& fn) {
  for (const auto& [name, child] : children_) child->apply(fn);
  fn(*this);
}

size_t Module::register_forward_pre_hook(ForwardPreHook hook) {
  forward_pre_hooks_.emplace_back(next_forward_hook_handle_, std::move(hook));
  return next_forward_hook_handle_++;
}

size_t Module::register_forward_hook(ForwardHook hook) {
  forward_hooks_.emplace_back(next_forward_hook_handle_, std::move(hook));
  return next_forward_hook_handle_++;
}

bool Module::remove_forward_hook(size_t handle) {
  auto erase = [handle](auto& hooks) {
    const size_t before = hooks.size();
    hooks.erase(std::remove_if(hooks.begin(), hooks.end(), [&](const auto& h) { return h.first == handle; }),
                hooks.end());
    return hooks.size() != before;
  };
  const bool pre = erase(forward_pre_hooks_);
  const bool post = erase(forward_hooks_);
  return pre || post;
}

void Module::run_forward_pre_hooks() const {
  for (const auto& hook : forward_pre_hooks_) hook.second();
}

void Module::run_forward_hooks(const std::vector<Tensor>& outputs) const {
  for (const auto& hook : forward_hooks_) hook.second(outputs);
}

void Module::train(bool on) {
  is_training_ = on;
  for (const auto& [name, child] : children_) child->train(on);
}

void Module::to(Device device, bool non_blocking) { convert(device, std::nullopt, std::nullopt, non_blocking); }

void Module::to(DType dtype) { convert(std::nullopt, dtype, std::nullopt, false); }

void Module::to(Device device, DType dtype, bool non_blocking) { convert(device, dtype, std::nullopt, non_blocking); }

void Module::to(MemoryFormat memory_format) { convert(std::nullopt, std::nullopt, memory_format, false); }

void Module::convert(std::optional<Device> device, std::optional<DType> dtype,
                     std::optional<MemoryFormat> memory_format, bool non_blocking) {
  BRISK_CHECK(!dtype || is_floating_point(*dtype),
              "{}: to: modules can only be converted to a floating point dtype, got {}", name(), *dtype);
  auto converted = [&](const Tensor& t) {
    const DType target = dtype && t.is_floating_point() ? *dtype : t.dtype();
    Tensor moved = native::to(t, device.value_or(t.device()), target, non_blocking);
    // As PyTorch's Module._apply: the format applies to 4-D tensors only.
    const bool reformat = memory_format && *memory_format != MemoryFormat::Preserve && t.dim() == 4;
    return reformat ? native::contiguous(moved, *memory_format) : moved;
  };
  NoGradGuard no_grad;
  std::unordered_set<const TensorImpl*> done;
  auto move = [&](const Tensor& t) {
    if (!t.defined() || !done.insert(t.impl()).second) return;
    t.set_data(converted(t));
    Tensor grad = t.grad();
    if (grad.defined()) t.set_grad(converted(grad));
  };
  for (const auto& module : modules()) {
    for (const auto& [name, t] : module->parameters_) move(t);
    for (const auto& [name, t] : module->buffers_) move(t);
  }
}

void Module::zero_grad(bool set_to_none) { autograd::zero_gradients(parameters(), set_to_none); }

namespace {

// (name, registered tensor) of every parameter and buffer, in state_dict order.
std::vector<std::pair<std::string, Tensor>> state_entries(const Module& module) {
  std::vector<std::pair<std::string, Tensor>> out;
  visit_tensors(module, "", true, {&ModuleRegistries::parameters, &ModuleRegistries::buffers},
                [&](const std::string& name, const Tensor& t) { out.emplace_back(name, t); });
  return out;
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "\"" : ", \"") + name + "\"";
  return out;
}

}  // namespace

StateDict Module::state_dict() const {
  StateDict out;
  for (const auto& [name, t] : state_entries(*this)) out.insert(name, t.detach());
  return out;
}

void Module::load_state_dict(const StateDict& state, bool strict) {
  const std::vector<std::pair<std::string, Tensor>> entries = state_entries(*this);
  std::vector<std::string> missing, mismatched, unexpected;
  std::unordered_set<std::string> known;
  for (const auto& [name, t] : entries) {
    known.insert(name);
    const Tensor* value = state.find(name);
    if (value == nullptr) {
      missing.push_back(name);
    } else if (value->sizes() != t.sizes()) {
      mismatched.push_back(fmt::format("size mismatch for {}: copying a tensor with shape {} from the state dict, "
                                       "the shape in the current model is {}",
                                       name, value->sizes(), t.sizes()));
    }
  }
  for (const auto& [name, value] : state) {
    if (!known.count(name)) unexpected.push_back(name);
  }
  std::string errors;
  if (strict && !missing.empty()) errors += "\n  Missing key(s) in state_dict: " + quoted_list(missing) + ".";
  if (strict && !unexpected.empty()) errors += "\n  Unexpected key(s) in state_dict: " + quoted_list(unexpected) + ".";
  for (const auto& line : mismatched) errors += "\n  " + line + ".";
  BRISK_CHECK(errors.empty(), "load_state_dict: error(s) in loading state_dict for {}:{}", name(), errors);

  NoGradGuard no_grad;
  for (const auto& [name, t] : entries) {
    if (const Tensor* value = state.find(name)) {
      Tensor target = t;
      native::copy_(target, *value);
    }
  }
}

void Module::pretty_print(std::ostream& stream) const { stream << name(); }

void rethrow_in_module(const Module& module, const Error& error) {
  std::ostringstream line;
  line << error.what() << "\n  in ";
  if (!module.name_in_parent().empty()) line << module.name_in_parent() << ": ";
  module.pretty_print(line);
  throw Error(line.str());
}

std::ostream& operator<<(std::ostream& stream, const Module& module) {
  module.pretty_print(stream);
  const auto& children = ModuleRegistries::children(module);
  if (children.empty()) return stream;
  stream << "(\n";
  for (const auto& [name, child] : children) {
    std::ostringstream text;
    text << *child;
    stream << "  (" << name << "): " << indent(text.str()) << "\n";
  }
  return stream << ")";
}

}  // namespace brisk::nn
