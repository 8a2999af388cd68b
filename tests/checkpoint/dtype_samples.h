#pragma once
// One tensor of each dtype safetensors and Brisk share, with values each dtype holds exactly
// (extremes included): the tensors of tools/fixtures/gen_safetensors_fixtures.py's
// expected_tensors(), under the same names.
#include "nn/module.h"

namespace brisk::testing {

nn::StateDict dtype_samples();

// Same names, dtypes, shapes and bytes.
bool same_bits(const Tensor& a, const Tensor& b);

}  // namespace brisk::testing
