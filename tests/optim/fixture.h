#pragma once
// tests/fixtures/optim.json, PyTorch's reference results for brisk::optim, written by
// tools/fixtures/gen_optim_fixtures.py (its docstring describes the format), and the small
// least-squares problem its optimizer trajectories were recorded on.
#include <nlohmann/json.hpp>

#include <map>
#include <string>

#include "autograd/ops.h"

namespace brisk::test {

using json = nlohmann::json;

// The parsed file, read once. Bazel runs tests from the runfiles root, where the file is
// at tests/fixtures/optim.json.
const json& optim_fixture();

// A new tensor from {"shape", "dtype", "data"}.
Tensor fixture_tensor(const json& spec);

// The problem's parameters converted to `dtype`, fresh leaves; all but "frozen" require grad.
std::map<std::string, Tensor> problem_params(DType dtype);
// mean((x @ w^T + b - y)^2) + 0.25 * sum((v^2 - 1)^2), with the problem's x and y in params' dtype.
Tensor problem_loss(const std::map<std::string, Tensor>& params);

// Whether `got` has the shape of `expected` and values within atol + rtol * |expected|;
// on failure, `why` names the first element that differs.
bool matches(const Tensor& got, const json& expected, double rtol, double atol, std::string& why);

}  // namespace brisk::test
