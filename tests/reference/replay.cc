#include "tests/reference/replay.h"

#include <exception>
#include <typeinfo>

namespace brisk::reference {

namespace {

// PyTorch leaves a gradient unset when no path reaches the input; Brisk may leave it
// unset too or fill it with zeros.
bool undefined_or_zero(const Tensor& grad) {
  if (!grad.defined()) return true;
  for (double v : grad.to_vector<double>()) {
    if (v != 0.0) return false;
  }
  return true;
}

std::string check_outputs(const Outputs& outs, const json& c) {
  const json& expected = c.at("outputs");
  if (outs.size() != expected.size()) {
    return fmt::format("expected {} outputs, got {}", expected.size(), outs.size());
  }
  const json* upstream = c.contains("grad_outputs") ? &c.at("grad_outputs") : nullptr;
  for (size_t i = 0; i < outs.size(); ++i) {
    const std::string problem = compare(outs[i], expected[i]);
    if (!problem.empty()) return fmt::format("output {}: {}", i, problem);
    const bool differentiable = upstream && !(*upstream)[i].is_null();
    if (outs[i].requires_grad() != differentiable) {
      return fmt::format("output {}: requires_grad is {}, PyTorch's is {}", i, outs[i].requires_grad(), differentiable);
    }
  }
  return "";
}

// Backward of sum(out_i * g_i) over the differentiable outputs; a single output takes
// its upstream gradient directly so the check does not depend on mul and sum.
void backward(const Outputs& outs, const json& upstream) {
  std::vector<std::pair<Tensor, Tensor>> terms;
  for (size_t i = 0; i < outs.size(); ++i) {
    if (!upstream[i].is_null()) terms.emplace_back(outs[i], make_tensor(upstream[i]));
  }
  if (terms.size() == 1) {
    terms[0].first.backward(terms[0].second);
    return;
  }
  Tensor loss;
  for (const auto& [out, g] : terms) {
    Tensor term = (out * g).sum();
    loss = loss.defined() ? loss + term : term;
  }
  loss.backward();
}

std::string check_grads(const Inputs& leaves, const json& expected) {
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Tensor grad = leaves[i].requires_grad() ? leaves[i].grad() : Tensor();
    if (expected[i].is_null()) {
      if (!undefined_or_zero(grad)) return fmt::format("grad of input {}: expected none, got {}", i, grad.describe());
      continue;
    }
    const std::string problem = compare(grad, expected[i]);
    if (!problem.empty()) return fmt::format("grad of input {}: {}", i, problem);
  }
  return "";
}

}  // namespace

std::string replay(const json& c, const Variant& variant) {
  Inputs leaves;
  Inputs args;
  Outputs outs;
  try {
    for (const json& spec : c.at("inputs")) {
      Tensor leaf = make_tensor(spec);
      if (spec.at("requires_grad").get<bool>()) leaf.requires_grad_(true);
      leaves.push_back(leaf);
      args.push_back(spec.contains("view") ? apply_view(leaf, spec.at("view")) : leaf);
    }
  } catch (const std::exception& e) {
    return fmt::format("building the inputs threw: {}", e.what());
  }

  const json& params = c.at("params");
  if (c.value("error", false)) {
    try {
      variant.run(args, params);
    } catch (const Error&) {
      return "";
    } catch (const std::exception& e) {
      return fmt::format("threw a {} instead of brisk::Error: {}", typeid(e).name(), e.what());
    }
    return "PyTorch refuses this call, but Brisk did not throw";
  }

  try {
    outs = variant.run(args, params);
  } catch (const std::exception& e) {
    return fmt::format("threw: {}", e.what());
  }
  try {
    std::string problem = check_outputs(outs, c);
    if (!problem.empty() || !c.contains("grad_outputs")) return problem;
  } catch (const std::exception& e) {
    return fmt::format("reading the outputs threw: {}", e.what());
  }

  try {
    backward(outs, c.at("grad_outputs"));
  } catch (const std::exception& e) {
    return fmt::format("backward threw: {}", e.what());
  }
  try {
    return check_grads(leaves, c.at("grads"));
  } catch (const std::exception& e) {
    return fmt::format("reading the gradients threw: {}", e.what());
  }
}

}  // namespace brisk::reference
