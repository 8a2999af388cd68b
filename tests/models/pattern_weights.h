#pragma once
// The deterministic weights and inputs of the model fixtures, bit for bit as
// tools/fixtures/pattern_weights.py makes them (its docstring has the formulas), so that the
// fixtures need not store weights.
#include <cstdint>

#include "nn/module.h"
#include "tensor/tensor.h"

namespace brisk::test {

// pattern(numel, k): float32 [numel], element i = ((i * 7919 + k * 104729) % 2001 - 1000) / 16000.
Tensor pattern(int64_t numel, int64_t k);

// State_dict entry number k gets pattern(numel, k), plus 1 for 1-D weights (BatchNorm's scale)
// and running_var, rounded to float32 and stored in the entry's dtype. Integer buffers keep
// their values.
void set_pattern_weights(nn::Module& model);

// [n, channels, size, size] float32 images in [-1, 1]: pattern(numel, 99) * 16.
Tensor pattern_images(int64_t n, int64_t channels, int64_t size);

}  // namespace brisk::test
