#include "tests/optim/fixture.h"

#include <cmath>
#include <fstream>

namespace brisk::test {

const json& optim_fixture() {
  static const json fixture = [] {
    const char* path = "tests/fixtures/optim.json";
    std::ifstream in(path);
    BRISK_CHECK(in.good(), "optim fixture: cannot open {} (run the test from the workspace or runfiles root)", path);
    return json::parse(in);
  }();
  return fixture;
}

Tensor fixture_tensor(const json& spec) {
  const std::string dtype = spec.at("dtype").get<std::string>();
  BRISK_CHECK(dtype == "float32" || dtype == "float64", "optim fixture: unexpected dtype {}", dtype);
  Shape shape = spec.at("shape").get<Shape>();
  return tensor(spec.at("data").get<std::vector<double>>(), shape, TensorOptions(kFloat64))
      .to(dtype == "float32" ? kFloat32 : kFloat64);
}

std::map<std::string, Tensor> problem_params(DType dtype) {
  std::map<std::string, Tensor> params;
  for (const auto& [name, spec] : optim_fixture().at("problem").at("params").items()) {
    params[name] = fixture_tensor(spec).to(dtype).requires_grad_(name != "frozen");
  }
  return params;
}

Tensor problem_loss(const std::map<std::string, Tensor>& params) {
  const json& problem = optim_fixture().at("problem");
  DType dtype = params.at("w").dtype();
  Tensor x = fixture_tensor(problem.at("x")).to(dtype);
  Tensor y = fixture_tensor(problem.at("y")).to(dtype);
  const Tensor& v = params.at("v");
  Tensor fit = (x.matmul(params.at("w").t()) + params.at("b") - y).pow(2).mean();
  return fit + (v * v - 1).pow(2).sum() * 0.25;
}

bool matches(const Tensor& got, const json& expected, double rtol, double atol, std::string& why) {
  Shape shape = expected.at("shape").get<Shape>();
  if (got.sizes() != shape) {
    why = fmt::format("shape {} != expected {}", got.sizes(), shape);
    return false;
  }
  std::vector<double> values = got.to_vector<double>();
  std::vector<double> want = expected.at("data").get<std::vector<double>>();
  for (size_t i = 0; i < values.size(); ++i) {
    if (!(std::abs(values[i] - want[i]) <= atol + rtol * std::abs(want[i]))) {
      why =
          fmt::format("element {}: {} != expected {} (difference {:.3g})", i, values[i], want[i], values[i] - want[i]);
      return false;
    }
  }
  return true;
}

}  // namespace brisk::test
