// Replays tests/fixtures/autocast.json: every case runs its op on CPU inputs of the recorded
// dtypes under brisk::autocast("cpu", bfloat16 and float16) and must give the result dtype
// that torch.autocast gave.
#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "autograd/autocast.h"
#include "autograd/ops.h"
#include "nn/functional.h"

namespace brisk {
namespace {

using json = nlohmann::json;
namespace F = nn::functional;
using Inputs = std::vector<Tensor>;
using Runner = std::function<Tensor(const Inputs&, const json&)>;

const json& fixture() {
  static const json cases = [] {
    const char* path = "tests/fixtures/autocast.json";
    std::ifstream in(path);
    BRISK_CHECK(in.good(), "autocast fixture: cannot open {} (run the test from the workspace or runfiles root)", path);
    return json::parse(in);
  }();
  return cases;
}

DType dtype_named(const std::string& name) {
  for (DType t : {kFloat32, kFloat64, kInt64, kBFloat16, kFloat16}) {
    if (name == dtype_name(t)) return t;
  }
  throw Error(fmt::format("autocast fixture: unexpected dtype {}", name));
}

// The op's Brisk call for the fixture's "op" key.
const std::map<std::string, Runner>& runners() {
  static const std::map<std::string, Runner> table = {
      {"matmul", [](const Inputs& in, const json&) { return matmul(in[0], in[1]); }},
      {"mm", [](const Inputs& in, const json&) { return mm(in[0], in[1]); }},
      {"bmm", [](const Inputs& in, const json&) { return bmm(in[0], in[1]); }},
      {"addmm", [](const Inputs& in, const json&) { return addmm(in[0], in[1], in[2]); }},
      {"linear", [](const Inputs& in, const json&) { return F::linear(in[0], in[1], in[2]); }},
      {"conv2d", [](const Inputs& in,
                    const json& p) { return F::conv2d(in[0], in[1], in[2], 1, p.at("padding").get<int64_t>()); }},
      {"conv1d", [](const Inputs& in, const json&) { return F::conv1d(in[0], in[1], in[2]); }},
      {"conv_transpose2d",
       [](const Inputs& in, const json& p) {
         return F::conv_transpose2d(in[0], in[1], in[2], p.at("stride").get<int64_t>());
       }},
      {"mse_loss", [](const Inputs& in, const json&) { return F::mse_loss(in[0], in[1]); }},
      {"nll_loss", [](const Inputs& in, const json&) { return F::nll_loss(in[0], in[1]); }},
      {"cross_entropy", [](const Inputs& in, const json&) { return F::cross_entropy(in[0], in[1]); }},
      {"prod", [](const Inputs& in, const json&) { return prod(in[0]); }},
      {"cat", [](const Inputs& in, const json&) { return cat(in); }},
      {"stack", [](const Inputs& in, const json&) { return stack(in); }},
      {"softmax", [](const Inputs& in, const json& p) { return softmax(in[0], p.at("dim").get<int64_t>()); }},
      {"log_softmax", [](const Inputs& in, const json& p) { return log_softmax(in[0], p.at("dim").get<int64_t>()); }},
      {"sum", [](const Inputs& in, const json&) { return sum(in[0]); }},
      {"mean", [](const Inputs& in, const json&) { return mean(in[0]); }},
      {"exp", [](const Inputs& in, const json&) { return exp(in[0]); }},
      {"log", [](const Inputs& in, const json&) { return log(in[0].abs()); }},
      {"rsqrt", [](const Inputs& in, const json&) { return rsqrt(in[0].abs()); }},
      {"pow_scalar", [](const Inputs& in, const json& p) { return pow(in[0], p.at("exponent").get<double>()); }},
      {"softplus", [](const Inputs& in, const json&) { return F::softplus(in[0]); }},
      {"layer_norm",
       [](const Inputs& in, const json&) { return F::layer_norm(in[0], {in[0].size(-1)}, in[1], in[2]); }},
      {"group_norm",
       [](const Inputs& in, const json& p) {
         return F::group_norm(in[0], p.at("num_groups").get<int64_t>(), in[1], in[2]);
       }},
      {"logsumexp", [](const Inputs& in, const json& p) { return logsumexp(in[0], {p.at("dim").get<int64_t>()}); }},
      {"addcmul", [](const Inputs& in, const json&) { return addcmul(in[0], in[1], in[2]); }},
      {"relu", [](const Inputs& in, const json&) { return relu(in[0]); }},
      {"add", [](const Inputs& in, const json&) { return add(in[0], in[1]); }},
      {"mul", [](const Inputs& in, const json&) { return mul(in[0], in[1]); }},
      {"max_pool2d",
       [](const Inputs& in, const json& p) { return F::max_pool2d(in[0], p.at("kernel_size").get<int64_t>()); }},
      {"avg_pool2d",
       [](const Inputs& in, const json& p) { return F::avg_pool2d(in[0], p.at("kernel_size").get<int64_t>()); }},
      {"adaptive_avg_pool2d",
       [](const Inputs& in, const json& p) {
         return F::adaptive_avg_pool2d(in[0], p.at("output_size").get<int64_t>());
       }},
      {"batch_norm",
       [](const Inputs& in, const json&) {
         return F::batch_norm(in[0], in[1], in[2].abs(), in[3], in[4], /*training=*/true);
       }},
  };
  return table;
}

Tensor make_input(const json& spec, DType low) {
  const std::string name = spec.at("dtype").get<std::string>();
  const Shape shape = spec.at("shape").get<Shape>();
  if (name == "int64") return randint(0, 3, shape);
  return randn(shape).to(name == "low" ? low : dtype_named(name));
}

TEST_CASE("autocast on the CPU chooses PyTorch's result dtype for every op of the fixture") {
  const json& cases = fixture().at("cases");
  REQUIRE(cases.size() >= 40);
  for (const json& c : cases) {
    const std::string op = c.at("op").get<std::string>();
    REQUIRE(runners().count(op) == 1);
    for (DType low : {kBFloat16, kFloat16}) {
      Inputs inputs;
      for (const json& spec : c.at("inputs")) inputs.push_back(make_input(spec, low));
      const std::string expected = c.at("result").at(dtype_name(low)).get<std::string>();
      INFO(c.at("name").get<std::string>() << " under autocast " << dtype_name(low));
      autocast guard(kCPU, low);
      Tensor out = runners().at(op)(inputs, c.at("params"));
      CHECK(std::string(dtype_name(out.dtype())) == expected);
    }
  }
}

}  // namespace
}  // namespace brisk
