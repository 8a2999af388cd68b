#pragma once
// Whether ops record autograd history, per thread (torch.no_grad / torch.enable_grad).
#include "brisk/requires_cxx17.h"

namespace brisk::autograd {

class GradMode {
 public:
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// Sets grad mode for a scope and restores the previous mode on exit.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : previous_(GradMode::is_enabled()) { GradMode::set_enabled(enabled); }
  ~AutoGradMode() { GradMode::set_enabled(previous_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool previous_;
};

// `{ NoGradGuard guard; p.sub_(lr * p.grad()); }`: ops in the scope record no history.
class NoGradGuard : public AutoGradMode {
 public:
  NoGradGuard() : AutoGradMode(false) {}
};

// Turns recording back on inside a no-grad scope.
class EnableGradGuard : public AutoGradMode {
 public:
  EnableGradGuard() : AutoGradMode(true) {}
};

}  // namespace brisk::autograd

namespace brisk {
using autograd::EnableGradGuard;
using autograd::NoGradGuard;
}  // namespace brisk
