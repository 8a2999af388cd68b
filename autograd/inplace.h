#pragma once
// The checks and the version bump that every in-place op makes (autograd/inplace.cc).
#include "tensor/tensor.h"

namespace brisk::autograd {

// Refuses, in grad mode, to change a leaf that requires grad or a view of a tensor that
// requires grad (its base's gradient would miss the change); `op` names the caller.
void check_inplace(const Tensor& self, const char* op);

// Checks that in-place op `op` may change `self`, runs `kernel` (which changes self's memory)
// and makes sure the version moves on exactly once, whether or not the kernel bumped it.
template <typename Kernel>
void modify(Tensor& self, const char* op, Kernel&& kernel) {
  check_inplace(self, op);
  uint32_t before = self.version();
  kernel();
  if (self.version() == before) self.bump_version();
}

}  // namespace brisk::autograd
