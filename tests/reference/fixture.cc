#include "tests/reference/fixture.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>

namespace brisk::reference {

namespace {

// A data or params value as a double: numbers, bools, and the strings JSON needs for
// the floats it cannot hold.
double parse_float(const json& v) {
  if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    BRISK_FAIL("fixture: unknown float {}", s);
  }
  return v.get<double>();
}

Shape parse_shape(const json& v) { return v.get<Shape>(); }

// Relative (and absolute) tolerance per floating dtype: float64 and float32 as the
// reference suite promises; the 16-bit types have 11 and 8 significant bits.
double tolerance(DType dtype) {
  switch (dtype) {
    case kFloat64: return 1e-6;
    case kFloat32: return 1e-5;
    case kFloat16: return 2e-3;
    case kBFloat16: return 1e-2;
    default: return 0.0;
  }
}

// Elements read in the tensor's own dtype, so the comparison does not depend on Brisk's
// dtype conversions (16-bit floats go through float32). Integers stay exact.
template <typename To, typename From>
std::vector<To> widen(const std::vector<From>& v) {
  return std::vector<To>(v.begin(), v.end());
}

std::vector<double> float_values(const Tensor& t) {
  if (t.dtype() == kFloat64) return t.to_vector<double>();
  return widen<double>(t.to_vector<float>());
}

std::vector<int64_t> integer_values(const Tensor& t) {
  switch (t.dtype()) {
    case kInt64: return t.to_vector<int64_t>();
    case kInt32: return widen<int64_t>(t.to_vector<int32_t>());
    case kUInt8: return widen<int64_t>(t.to_vector<uint8_t>());
    case kBool: return widen<int64_t>(t.to_vector<bool>());
    default: BRISK_FAIL("fixture: {} is not an integer dtype", t.dtype());
  }
}

// "[1, 0]": the index of flat element `flat` in `shape`.
std::string index_of(int64_t flat, const Shape& shape) {
  Shape index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return fmt::format("{}", index);
}

// Element i of a pattern input: ((i * mul) % mod + offset) / divisor, in integers and one
// float64 division, exactly as the generator computes it.
std::vector<double> pattern_values(int64_t n, const json& pattern) {
  const int64_t mul = pattern.at("mul").get<int64_t>();
  const int64_t mod = pattern.at("mod").get<int64_t>();
  const int64_t offset = pattern.at("offset").get<int64_t>();
  const double divisor = pattern.at("divisor").get<double>();
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * mul) % mod + offset) / divisor;
  return v;
}

bool close(double got, double expected, double tol) {
  if (std::isnan(expected)) return std::isnan(got);
  if (std::isinf(expected)) return got == expected;
  return std::abs(got - expected) <= tol + tol * std::abs(expected);
}

Tensor make_cpu_tensor(const json& spec) {
  const Shape shape = parse_shape(spec.at("shape"));
  const DType dtype = parse_dtype(spec.at("dtype").get<std::string>());
  if (spec.contains("pattern")) {
    return tensor(pattern_values(shape_numel(shape), spec.at("pattern")), shape, TensorOptions(dtype));
  }
  const json& data = spec.at("data");
  if (dtype == kBool) return tensor(data.get<std::vector<bool>>(), shape);
  if (is_floating_point(dtype)) {
    std::vector<double> v;
    v.reserve(data.size());
    for (const json& x : data) v.push_back(parse_float(x));
    return tensor(v, shape, TensorOptions(dtype));
  }
  return tensor(data.get<std::vector<int64_t>>(), shape, TensorOptions(dtype));
}

}  // namespace

const json& fixture() {
  static const json parsed = [] {
    const char* path = "tests/fixtures/ops.json";
    std::ifstream in(path);
    BRISK_CHECK(in.good(), "fixture: cannot open {} (run the test from the workspace or runfiles root)", path);
    return json::parse(in);
  }();
  return parsed;
}

DType parse_dtype(const std::string& name) {
  for (DType t : {kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBool, kBFloat16, kFloat16}) {
    if (name == dtype_name(t)) return t;
  }
  BRISK_FAIL("fixture: unknown dtype {}", name);
}

Scalar scalar_param(const json& value) {
  if (value.is_boolean()) return Scalar(value.get<bool>());
  if (value.is_number_integer()) return Scalar(value.get<int64_t>());
  return Scalar(parse_float(value));
}

std::optional<Scalar> optional_scalar_param(const json& value) {
  if (value.is_null()) return std::nullopt;
  return scalar_param(value);
}

double double_param(const json& value) { return parse_float(value); }

Tensor make_tensor(const json& spec) { return on_test_device(make_cpu_tensor(spec)); }

Tensor apply_view(const Tensor& base, const json& steps) {
  Tensor t = base;
  for (const json& step : steps) {
    const std::string op = step.at(0).get<std::string>();
    auto optional_int = [](const json& v) {
      return v.is_null() ? std::nullopt : std::optional<int64_t>(v.get<int64_t>());
    };
    if (op == "transpose") {
      t = t.transpose(step.at(1).get<int64_t>(), step.at(2).get<int64_t>());
    } else if (op == "permute") {
      t = t.permute(step.at(1).get<std::vector<int64_t>>());
    } else if (op == "slice") {
      t = t.slice(step.at(1).get<int64_t>(), optional_int(step.at(2)), optional_int(step.at(3)),
                  step.at(4).get<int64_t>());
    } else if (op == "narrow") {
      t = t.narrow(step.at(1).get<int64_t>(), step.at(2).get<int64_t>(), step.at(3).get<int64_t>());
    } else if (op == "select") {
      t = t.select(step.at(1).get<int64_t>(), step.at(2).get<int64_t>());
    } else if (op == "expand") {
      t = t.expand(parse_shape(step.at(1)));
    } else {
      BRISK_FAIL("fixture: unknown view step {}", op);
    }
  }
  return t;
}

std::string compare(const Tensor& got, const json& expected) {
  if (!got.defined()) return "is an undefined tensor";
  if (got.device() != test_device()) return fmt::format("is on {}, expected on {}", got.device(), test_device());
  const Shape shape = parse_shape(expected.at("shape"));
  const DType dtype = parse_dtype(expected.at("dtype").get<std::string>());
  if (got.sizes() != shape || got.dtype() != dtype) {
    return fmt::format("expected {} {}, got {} {}", shape, dtype, got.sizes(), got.dtype());
  }
  const json& data = expected.at("data");
  if (!is_floating_point(dtype)) {
    const std::vector<int64_t> actual = integer_values(got);
    for (size_t i = 0; i < actual.size(); ++i) {
      const int64_t want = data[i].is_boolean() ? int64_t(data[i].get<bool>()) : data[i].get<int64_t>();
      if (actual[i] != want) {
        return fmt::format("element {} of {}: expected {}, got {}", index_of(i, shape), shape, want, actual[i]);
      }
    }
    return "";
  }
  const std::vector<double> actual = float_values(got);
  const double tol = tolerance(dtype);
  std::string first;
  int64_t mismatches = 0;
  double max_difference = 0.0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double want = parse_float(data[i]);
    if (close(actual[i], want, tol)) continue;
    if (mismatches++ == 0) {
      first = fmt::format("element {} of {}: expected {}, got {}", index_of(i, shape), shape, want, actual[i]);
    }
    max_difference = std::max(max_difference, std::abs(actual[i] - want));
  }
  if (mismatches == 0) return "";
  return fmt::format("{} ({} {} elements differ, by at most {}; tolerance {})", first, mismatches, dtype,
                     max_difference, tol);
}

}  // namespace brisk::reference
