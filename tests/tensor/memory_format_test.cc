// Memory formats (tensor/memory_format.h) against PyTorch: the formats PyTorch reads from
// sizes and strides, and the strides of each op's results for inputs of given layouts
// (tests/fixtures/memory_format.json, written by tools/fixtures/gen_memory_format_fixtures.py).
// A twin runs on the simulated device, whose results must be laid out as the CPU's.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "nn/functional.h"
#include "tensor/native/ops.h"
#include "tests/test_device.h"

namespace brisk {
namespace {

namespace F = nn::functional;
using json = nlohmann::json;

json fixture() {
  std::ifstream in("tests/fixtures/memory_format.json");
  REQUIRE(in.good());
  return json::parse(in);
}

Shape shape_of(const json& j) { return j.get<std::vector<int64_t>>(); }

// A tensor with exactly the fixture's sizes and strides on the test device, holding 0.5s (bools: false).
Tensor make_input(const json& j, DType dtype = kFloat32) {
  Tensor t = native::empty_strided(shape_of(j["shape"]), shape_of(j["strides"]),
                                   TensorOptions(dtype).device(test::test_device()));
  native::fill_(t, dtype == kBool ? 0.0 : 0.5);
  return t;
}

// The op of a fixture case (README of the generator: tools/fixtures/gen_memory_format_fixtures.py).
std::vector<Tensor> run(const std::string& op, std::vector<Tensor> in) {
  if (op == "relu") return {in[0].relu()};
  if (op == "neg") return {in[0].neg()};
  if (op == "clone") return {in[0].clone()};
  if (op == "empty_like") return {empty_like(in[0])};
  if (op == "to_float64") return {in[0].to(kFloat64)};
  if (op == "contiguous_channels_last") return {in[0].contiguous(MemoryFormat::ChannelsLast)};
  if (op == "add") return {in[0] + in[1]};
  if (op == "mul") return {in[0] * in[1]};
  if (op == "where") return {where(in[0], in[1], in[2])};
  if (op == "conv2d") return {F::conv2d(in[0], in[1], Tensor(), 1, 1)};
  if (op == "max_pool2d") return {F::max_pool2d(in[0], 2)};
  if (op == "avg_pool2d") return {F::avg_pool2d(in[0], 2)};
  if (op == "adaptive_avg_pool2d") return {F::adaptive_avg_pool2d(in[0], 1)};
  if (op == "batch_norm") {
    const int64_t c = in[0].size(1);
    Tensor w = ones({c}, TensorOptions().device(test::test_device()));
    return {F::batch_norm(in[0], Tensor(), Tensor(), w, zeros_like(w), true)};
  }
  // The gradients' layouts: leaves cloned with their layout (preserve_format), as the generator.
  Tensor a = in[0].clone().requires_grad_(), b = in[1].clone().requires_grad_();
  if (op == "conv2d_grads") F::conv2d(a, b, Tensor(), 1, 1).sum().backward();
  if (op == "add_grads") (a + b).sum().backward();
  REQUIRE((op == "conv2d_grads" || op == "add_grads"));
  return {a.grad(), b.grad()};
}

TEST_CASE("memory formats: is_contiguous, suggest_memory_format and density as PyTorch reads them") {
  const json cases = fixture()["formats"];
  REQUIRE(cases.size() > 10);
  for (const json& c : cases) {
    Shape sizes = shape_of(c["shape"]), strides = shape_of(c["strides"]);
    INFO("sizes " << fmt::format("{}", sizes) << " strides " << fmt::format("{}", strides));
    CHECK(is_contiguous_in(sizes, strides, MemoryFormat::Contiguous) == c["is_contiguous"].get<bool>());
    CHECK(is_contiguous_in(sizes, strides, MemoryFormat::ChannelsLast) == c["is_channels_last"].get<bool>());
    CHECK(is_non_overlapping_and_dense(sizes, strides) == c["non_overlapping_and_dense"].get<bool>());
    const bool channels_last = c["suggest"] == "channels_last";
    CHECK(suggest_memory_format(sizes, strides) ==
          (channels_last ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous));
    Tensor t = make_input(c);
    CHECK(t.is_contiguous(MemoryFormat::ChannelsLast) == c["is_channels_last"].get<bool>());
    CHECK(t.suggest_memory_format() == suggest_memory_format(sizes, strides));
  }
}

TEST_CASE("memory formats: each op's results are laid out as PyTorch lays them out") {
  const json cases = fixture()["ops"];
  REQUIRE(cases.size() > 50);
  for (const json& c : cases) {
    const std::string name = c["name"], op = c["op"];
    INFO(name);
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < c["inputs"].size(); ++i) {
      inputs.push_back(make_input(c["inputs"][i], op == "where" && i == 0 ? kBool : kFloat32));
    }
    std::vector<Tensor> results = run(op, inputs);
    REQUIRE(results.size() == c["outputs"].size());
    for (size_t i = 0; i < results.size(); ++i) {
      INFO("result " << i);
      CHECK(results[i].strides() == shape_of(c["outputs"][i]));
      CHECK(results[i].device() == test::test_device());
    }
  }
}

TEST_CASE("memory formats: factories, to(MemoryFormat) and their errors") {
  Tensor x = empty({2, 3, 4, 5}, TensorOptions().memory_format(MemoryFormat::ChannelsLast));
  CHECK(x.strides() == Shape{60, 1, 15, 3});
  CHECK(x.is_contiguous(kChannelsLast));
  CHECK_FALSE(x.is_contiguous());
  // to(format) and contiguous(format) return the tensor itself when it is already so laid out.
  CHECK(x.to(MemoryFormat::ChannelsLast).is_same(x));
  CHECK(x.contiguous(MemoryFormat::ChannelsLast).is_same(x));
  CHECK(x.to(MemoryFormat::Contiguous).is_contiguous());
  CHECK(x.clone(MemoryFormat::Contiguous).is_contiguous());
  CHECK(empty_like(x, MemoryFormat::Contiguous).is_contiguous());
  CHECK(std::string(memory_format_name(MemoryFormat::ChannelsLast)) == "torch.channels_last");
  REQUIRE_THROWS_WITH(empty({2, 3}, TensorOptions().memory_format(MemoryFormat::ChannelsLast)),
                      Catch::Contains("torch.channels_last needs a 4-D tensor") && Catch::Contains("[2, 3]") &&
                          Catch::Contains("rank 2"));
  REQUIRE_THROWS_WITH(randn({3, 4}).contiguous(MemoryFormat::ChannelsLast),
                      Catch::Contains("4-D") && Catch::Contains("[3, 4]"));
}

TEST_CASE("memory formats: copy_ keeps the destination's layout and ops keep values") {
  Tensor src = randn({2, 3, 4, 5});
  Tensor dst = empty({2, 3, 4, 5}, TensorOptions().memory_format(MemoryFormat::ChannelsLast));
  dst.copy_(src);
  CHECK(dst.is_contiguous(MemoryFormat::ChannelsLast));
  CHECK(test::max_abs_diff(dst, src) == 0);
  // Values do not depend on the layout: elementwise ops on a channels_last copy equal the contiguous ones.
  Tensor a = test::on_test_device(randn({2, 3, 4, 5})), b = test::on_test_device(randn({1, 3, 1, 1}));
  Tensor a_cl = a.contiguous(MemoryFormat::ChannelsLast);
  CHECK(test::max_abs_diff((a_cl * b + 1).relu(), (a * b + 1).relu()) == 0);
  CHECK(test::max_abs_diff(where(a_cl > 0, a_cl, b), where(a > 0, a, b)) == 0);
  CHECK(test::max_abs_diff(a_cl.sum({0, 2, 3}), a.sum({0, 2, 3})) < 1e-5);
}

}  // namespace
}  // namespace brisk
