// Brisk's public op API against PyTorch: every case of tests/fixtures/ops.json, through
// every API variant of its op (see runners_*.cc), forward values and gradients.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "tests/reference/replay.h"

namespace brisk::reference {
namespace {

// The fixture's families, one TEST_CASE each below.
const std::set<std::string> kFamilies = {"elementwise", "comparison", "promotion", "reduction", "linalg",
                                         "view",        "copy",       "join",      "indexing",  "inplace",
                                         "factory",     "compare",    "error",     "edge",      "large"};

void check_family(const std::string& family) {
  int replayed = 0;
  for (const json& c : fixture().at("cases")) {
    if (c.at("family") != family) continue;
    const std::string name = c.at("name").get<std::string>();
    const auto runner = runners().find(c.at("op").get<std::string>());
    if (runner == runners().end()) continue;  // reported by the coverage test
    for (const Variant& variant : runner->second) {
      const std::string problem = replay(c, variant);
      INFO("case " << name << " via " << variant.api);
      CHECK(problem == "");
      ++replayed;
    }
  }
  CHECK(replayed > 0);
}

TEST_CASE("reference fixtures: every op has a runner and every runner a case", "[reference]") {
  std::set<std::string> ops_in_fixture;
  for (const json& c : fixture().at("cases")) {
    const std::string op = c.at("op").get<std::string>();
    ops_in_fixture.insert(op);
    INFO("case " << c.at("name").get<std::string>());
    CHECK(runners().count(op) == 1);
    CHECK(kFamilies.count(c.at("family").get<std::string>()) == 1);
  }
  for (const auto& [op, variants] : runners()) {
    INFO("runner " << op);
    CHECK(ops_in_fixture.count(op) == 1);
    CHECK(!variants.empty());
  }
}

TEST_CASE("reference: elementwise arithmetic, math, activations, selection", "[reference]") { check_family("elementwise"); }
TEST_CASE("reference: comparisons and logical ops", "[reference]") { check_family("comparison"); }
TEST_CASE("reference: type promotion", "[reference]") { check_family("promotion"); }
TEST_CASE("reference: reductions and softmax", "[reference]") { check_family("reduction"); }
TEST_CASE("reference: matrix products", "[reference]") { check_family("linalg"); }
TEST_CASE("reference: views", "[reference]") { check_family("view"); }
TEST_CASE("reference: copies and dtype conversion", "[reference]") { check_family("copy"); }
TEST_CASE("reference: cat, stack, split, chunk", "[reference]") { check_family("join"); }
TEST_CASE("reference: index_select, gather, scatter_add, one_hot", "[reference]") { check_family("indexing"); }
TEST_CASE("reference: in-place ops", "[reference]") { check_family("inplace"); }
TEST_CASE("reference: factories", "[reference]") { check_family("factory"); }
TEST_CASE("reference: equal and allclose", "[reference]") { check_family("compare"); }
TEST_CASE("reference: calls PyTorch refuses throw brisk::Error", "[reference]") { check_family("error"); }
TEST_CASE("reference: empty and 0-dim tensors, inf and NaN, integer wrap-around", "[reference]") {
  check_family("edge");
}
TEST_CASE("reference: inputs large enough for SIMD tails, GEMM blocks and threads", "[reference]") {
  check_family("large");
}

}  // namespace
}  // namespace brisk::reference
