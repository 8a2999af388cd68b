#pragma once
// Anomaly detection for backward, as torch::autograd::DetectAnomalyGuard:
//
//   {
//     autograd::DetectAnomalyGuard detect;  // for this scope
//     loss.backward();
//   }
//
// While it is on, every node recorded keeps the stack of the forward call that created it.
// When a node's backward throws, or (with check_nan) returns a gradient holding a NaN, the
// error names the node and prints that forward stack. Off (the default), recording a node and
// running backward cost one flag check each. For debugging only: capturing a stack per node
// and scanning every gradient is slow.
#include <memory>
#include <vector>

#include "autograd/node.h"

namespace brisk::autograd {

class AnomalyMode {
 public:
  static bool is_enabled();
  static bool should_check_nan();
  static void set_enabled(bool enabled, bool check_nan = true);
};

// Turns anomaly mode on for its scope; restores the previous mode when it ends.
class DetectAnomalyGuard {
 public:
  explicit DetectAnomalyGuard(bool check_nan = true);
  ~DetectAnomalyGuard();
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool previous_enabled_;
  bool previous_check_nan_;
};

// The stack of the forward call creating a node, when anomaly mode is on; null otherwise.
std::unique_ptr<const std::vector<void*>> capture_forward_stack();

// What the engine runs for `node` while anomaly mode is on: node.apply and validate_grads,
// with an error from either, or a NaN in a returned gradient, reported with the node's name
// and forward stack.
TensorList apply_with_anomaly_checks(Node& node, TensorList&& grads);

}  // namespace brisk::autograd
