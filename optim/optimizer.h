#pragma once
// The optimizer base: parameter groups with their own options, per-parameter state,
// zero_grad, and state_dict/load_state_dict in PyTorch's layout.
//
//   optim::SGD opt(model->parameters(), optim::SGDOptions(0.01).momentum(0.9));
//   for (...) {
//     opt.zero_grad();
//     loss(model->forward(x), y).backward();
//     opt.step();
//   }
//
// Groups with options of their own, as PyTorch's per-group dicts (a group without options
// takes the optimizer's defaults):
//
//   optim::Adam opt({optim::ParamGroup(backbone), optim::ParamGroup(head, optim::AdamOptions(1e-2))},
//                   optim::AdamOptions(1e-4));
#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace brisk::optim {

// The hyperparameters of one parameter group. Each optimizer has its own options class
// (SGDOptions, AdamOptions) with chained setters, e.g. SGDOptions(0.01).momentum(0.9);
// this interface is what the optimizer base and the LR schedulers see of them.
class OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const = 0;

  virtual double get_lr() const = 0;
  virtual void set_lr(double lr) = 0;
  // The momentum OneCycleLR cycles: SGD's momentum, Adam's beta1. has_momentum() is false
  // for an optimizer without one; get/set then throw.
  virtual bool has_momentum() const { return false; }
  virtual double get_momentum() const;
  virtual void set_momentum(double momentum);

  // The group's entry in a state dict, as PyTorch's param_groups minus "params", e.g.
  // {"lr": 0.01, "momentum": 0.9, "dampening": 0.0, ...}.
  virtual nlohmann::json to_json() const = 0;
  // Reads what to_json wrote; throws naming a key that is missing or of the wrong type.
  virtual void from_json(const nlohmann::json& json) = 0;
};

// Some parameters and the options they are optimized with.
class ParamGroup {
 public:
  // Parameters that take the optimizer's default options.
  explicit ParamGroup(std::vector<Tensor> params);
  ParamGroup(std::vector<Tensor> params, const OptimizerOptions& options);
  ParamGroup(const ParamGroup& other);
  ParamGroup& operator=(const ParamGroup& other);
  ParamGroup(ParamGroup&&) = default;
  ParamGroup& operator=(ParamGroup&&) = default;

  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }
  bool has_options() const { return options_ != nullptr; }
  // Every group inside an optimizer has options; throws for one that has none.
  OptimizerOptions& options();
  const OptimizerOptions& options() const;
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }

  // PyTorch's group["initial_lr"]: the lr the first LR scheduler attached to the
  // optimizer started from, which every later scheduler takes as its base lr.
  std::optional<double> initial_lr;

 private:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

// The state an optimizer keeps for one parameter, by name: "momentum_buffer" (SGD),
// "step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq" (Adam, AdamW).
using ParamState = std::map<std::string, Tensor>;

// An optimizer's state_dict in PyTorch's layout {state: {index: {...}}, param_groups: [...]},
// split into JSON metadata and named tensors so that a checkpoint can store both:
//
//   param_groups  one object per group, in order: its options (the keys of its options'
//                 to_json), "initial_lr" once a scheduler has set it, and "params", the
//                 indices of its parameters, numbered in order across all groups:
//                 [{"lr": 0.1, "momentum": 0.9, ..., "params": [0, 1]}, {..., "params": [2]}]
//   tensors       PyTorch's state[index][name] under the name "state.<index>.<name>":
//                 {"state.0.momentum_buffer": ..., "state.2.exp_avg": ..., "state.2.step": ...}
//                 A parameter that has not been updated yet has no entries.
//
// state_dict() hands out the optimizer's own state tensors, not copies (as PyTorch): clone
// them to keep a snapshot while training goes on. load_state_dict() copies what it loads.
struct OptimizerState {
  nlohmann::json param_groups = nlohmann::json::array();
  std::map<std::string, Tensor> tensors;
};

// Splits a state-dict tensor name "state.<index>.<name>" into (index, name); throws for any
// other key, naming `owner` (e.g. the optimizer) in the message.
std::pair<int64_t, std::string> parse_state_key(const std::string& key, const std::string& owner);

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // One update of every parameter that has a gradient; the others are skipped (frozen
  // parameters, or ones the loss does not reach).
  virtual void step() = 0;
  // Clears the gradients of all parameters: drops them (PyTorch's default) or, with
  // set_to_none = false, detaches them and fills them with zeros in place.
  void zero_grad(bool set_to_none = true);
  // Adds a group, with the optimizer's default options unless it has its own. Throws when a
  // parameter is not a defined leaf tensor or is already in a group, or when the options are
  // invalid or belong to another optimizer.
  void add_param_group(const ParamGroup& group);

  std::vector<ParamGroup>& param_groups() { return groups_; }
  const std::vector<ParamGroup>& param_groups() const { return groups_; }
  const OptimizerOptions& defaults() const { return *defaults_; }
  // "SGD", "Adam", ...: for error messages.
  const std::string& name() const { return name_; }

  // The state of `param` (empty until its first update).
  ParamState& state(const Tensor& param) { return state_[param.impl()]; }
  // Null when `param` has no state.
  const ParamState* find_state(const Tensor& param) const;

  OptimizerState state_dict() const;
  // Replaces the group options and the per-parameter state with `state`, which must come
  // from an optimizer of the same kind with groups of the same sizes. State tensors move to
  // their parameter's device and dtype, except "step", which stays on the CPU, as in PyTorch.
  void load_state_dict(const OptimizerState& state);

 protected:
  Optimizer(std::string name, std::unique_ptr<OptimizerOptions> defaults);
  // What the constructors of the optimizers call once the object is complete (so that
  // check_options dispatches to them). Throws for an empty parameter list.
  void add_param_groups(const std::vector<ParamGroup>& groups);
  // Throws, naming this optimizer and the value, when `options` are invalid or of another
  // optimizer's type.
  virtual void check_options(const OptimizerOptions& options) const = 0;

 private:
  void check_params(const std::vector<Tensor>& params, size_t group_index) const;

  std::string name_;
  std::unique_ptr<OptimizerOptions> defaults_;
  std::vector<ParamGroup> groups_;
  std::unordered_map<const TensorImpl*, ParamState> state_;
};

}  // namespace brisk::optim
