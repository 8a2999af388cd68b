#pragma once
// Reading the PyTorch reference cases of tests/fixtures/nn.json and nn_layers.json (written
// by tools/fixtures/gen_nn_fixtures.py and gen_layers_fixtures.py), and comparing Brisk's
// tensors with them.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace brisk::test {

using json = nlohmann::json;

// The case named `name`, from either file (the files are read once; tests run from the runfiles root).
const json& nn_case(const std::string& name);
// The names of every case of one kind ("conv2d", "max_pool2d", ...).
std::vector<std::string> nn_cases_of_kind(const std::string& kind);

// A new tensor from {"shape", "dtype", "data"}.
Tensor fixture_tensor(const json& spec);
// Empty when `got` has the expected shape and values within atol + rtol * |expected| (NaN
// matches NaN); otherwise a description of the first difference.
std::string compare_to_fixture(const Tensor& got, const json& expected, double rtol = 1e-4, double atol = 1e-5);

}  // namespace brisk::test
