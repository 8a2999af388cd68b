#include "tests/nn/nn_fixture.h"

#include <cmath>
#include <fstream>

#include "autograd/ops.h"

namespace brisk::test {
namespace {

// The cases of every nn fixture file, by name: nn.json (tools/fixtures/gen_nn_fixtures.py),
// nn_layers.json (gen_layers_fixtures.py) and nn_everyday.json (gen_everyday_fixtures.py), each
// read once.
const json& all_cases() {
  static const json cases = [] {
    json merged = json::object();
    for (const char* path :
         {"tests/fixtures/nn.json", "tests/fixtures/nn_layers.json", "tests/fixtures/nn_everyday.json"}) {
      std::ifstream in(path);
      BRISK_CHECK(in.good(), "nn fixture: cannot open {} (run the test from the workspace or runfiles root)", path);
      const json file = json::parse(in);
      for (const auto& [name, c] : file.at("cases").items()) {
        BRISK_CHECK(!merged.contains(name), "nn fixture: case \"{}\" of {} is also in another file", name, path);
        merged[name] = c;
      }
    }
    return merged;
  }();
  return cases;
}

double number(const json& v) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "nan") return std::nan("");
    return s == "inf" ? INFINITY : -INFINITY;
  }
  return v.get<double>();
}

}  // namespace

const json& nn_case(const std::string& name) {
  const json& cases = all_cases();
  BRISK_CHECK(cases.contains(name), "nn fixture: no case \"{}\"", name);
  return cases.at(name);
}

std::vector<std::string> nn_cases_of_kind(const std::string& kind) {
  std::vector<std::string> names;
  for (const auto& [name, c] : all_cases().items()) {
    if (c.at("kind") == kind) names.push_back(name);
  }
  BRISK_CHECK(!names.empty(), "nn fixture: no case of kind \"{}\"", kind);
  return names;
}

Tensor fixture_tensor(const json& spec) {
  Shape shape = spec.at("shape").get<Shape>();
  const std::string dtype = spec.at("dtype");
  const json& data = spec.at("data");
  if (dtype == "int64") return tensor(data.get<std::vector<int64_t>>(), shape);
  std::vector<double> values;
  for (const json& v : data) values.push_back(number(v));
  return tensor(values, shape, TensorOptions(dtype == "float32" ? kFloat32 : kFloat64));
}

std::string compare_to_fixture(const Tensor& got, const json& expected, double rtol, double atol) {
  Shape shape = expected.at("shape").get<Shape>();
  if (!got.defined()) return "got an undefined tensor";
  if (got.sizes() != shape) return fmt::format("shape {} differs from the expected {}", got.sizes(), shape);
  std::vector<double> values = got.to_vector<double>();
  const json& data = expected.at("data");
  for (size_t i = 0; i < values.size(); ++i) {
    double want = number(data[i]);
    bool same = std::isnan(want) ? std::isnan(values[i])
                                 : std::abs(values[i] - want) <= atol + rtol * std::abs(want) || values[i] == want;
    if (!same) return fmt::format("element {} is {}, expected {}", i, values[i], want);
  }
  return "";
}

}  // namespace brisk::test
