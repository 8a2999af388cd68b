#pragma once
// Reading tests/fixtures/ops.json, the PyTorch reference cases written by
// tools/fixtures/gen_op_fixtures.py (its README describes the format), into Brisk
// tensors, and comparing Brisk's results with PyTorch's.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "tests/test_device.h"

namespace brisk::reference {

using json = nlohmann::json;

// The parsed fixture file, read once. Bazel runs tests from the runfiles root, where
// the file is at tests/fixtures/ops.json.
const json& fixture();

DType parse_dtype(const std::string& name);

// A params number: an integer Scalar when written without a decimal point, a
// floating-point one when written with one or as "inf"/"-inf"/"nan", a bool Scalar for
// true/false.
Scalar scalar_param(const json& value);
// As scalar_param; null is "absent".
std::optional<Scalar> optional_scalar_param(const json& value);
double double_param(const json& value);

using test::on_test_device;
using test::test_device;

// A new contiguous tensor on the test device from {"shape", "dtype", "data"}, or "pattern"
// instead of "data" for a large generated input.
Tensor make_tensor(const json& spec);
// `base` after an input's view steps, each applied with the Brisk view op of its name.
Tensor apply_view(const Tensor& base, const json& steps);

// Empty when `got` is on the test device and has the shape, dtype and values of `expected`
// (floats within a relative and absolute tolerance that depends on the dtype, the rest
// exactly); otherwise a description of the first difference.
std::string compare(const Tensor& got, const json& expected);

}  // namespace brisk::reference
