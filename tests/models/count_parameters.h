#pragma once
// The number of trainable values of a model, as PyTorch's
// sum(p.numel() for p in model.parameters()).
#include <cstdint>

#include "nn/module.h"

namespace brisk::test {

inline int64_t count_parameters(const nn::Module& module) {
  int64_t n = 0;
  for (const Tensor& p : module.parameters()) n += p.numel();
  return n;
}

}  // namespace brisk::test
