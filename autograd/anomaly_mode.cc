#include "autograd/anomaly_mode.h"

#include <atomic>
#include <cmath>
#include <exception>
#include <string>

#include "autograd/grad_mode.h"
#include "tensor/backtrace.h"

namespace brisk::autograd {

namespace {

std::atomic<bool> enabled{false};
std::atomic<bool> check_nan{true};

// Where `node`'s forward was called, for an error of its backward.
std::string forward_stack_of(const Node& node) {
  const std::vector<void*>* stack = node.forward_stack();
  if (stack == nullptr)
    return fmt::format("{} was recorded before anomaly mode was turned on: no forward stack.", node.name());
  return fmt::format("The forward of {} was called at (most recent call first):\n{}", node.name(),
                     format_backtrace(*stack));
}

bool has_nan(const Tensor& t) {
  if (!t.defined() || !t.is_floating_point()) return false;
  NoGradGuard no_grad;
  for (double v : t.to_vector<double>()) {
    if (std::isnan(v)) return true;
  }
  return false;
}

}  // namespace

bool AnomalyMode::is_enabled() { return enabled.load(std::memory_order_relaxed); }

bool AnomalyMode::should_check_nan() { return check_nan.load(std::memory_order_relaxed); }

void AnomalyMode::set_enabled(bool on, bool nan) {
  check_nan.store(nan, std::memory_order_relaxed);
  enabled.store(on, std::memory_order_relaxed);
}

DetectAnomalyGuard::DetectAnomalyGuard(bool nan)
    : previous_enabled_(AnomalyMode::is_enabled()), previous_check_nan_(AnomalyMode::should_check_nan()) {
  AnomalyMode::set_enabled(true, nan);
}

DetectAnomalyGuard::~DetectAnomalyGuard() { AnomalyMode::set_enabled(previous_enabled_, previous_check_nan_); }

std::unique_ptr<const std::vector<void*>> capture_forward_stack() {
  if (!AnomalyMode::is_enabled()) return nullptr;
  // Skips this function and the Node constructor.
  return std::make_unique<const std::vector<void*>>(capture_backtrace(2));
}

TensorList apply_with_anomaly_checks(Node& node, TensorList&& grads) {
  TensorList returned;
  try {
    returned = validate_grads(node, node.apply(std::move(grads)));
  } catch (const std::exception& e) {
    throw Error(fmt::format("{}\n\nAnomaly mode: raised in the backward of {}. {}", e.what(), node.name(),
                            forward_stack_of(node)));
  }
  if (!AnomalyMode::should_check_nan()) return returned;
  for (size_t i = 0; i < returned.size(); ++i) {
    BRISK_CHECK(!has_nan(returned[i]), "Function '{}' returned nan values in its {}th output (anomaly mode).\n\n{}",
                node.name(), i, forward_stack_of(node));
  }
  return returned;
}

}  // namespace brisk::autograd
