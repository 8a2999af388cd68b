// Brisk's public op API against PyTorch: every case of tests/fixtures/ops.json, through
// every API variant of its op (see runners_*.cc), forward values and gradients.
// ops_reference_sim_test replays every case on the simulated device sim:0. The gpu-tagged
// ops_reference_gpu_test runs the same cases on CUDA (tests/test_device.h) with the same
// tolerances, float16 and bfloat16 included (the CUDA backend has both, and the 16-bit
// tolerances already allow a result one rounding step apart), except the cases
// cuda_skip_reason names.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>

#include "tests/reference/replay.h"

namespace brisk::reference {
namespace {

// The fixture's families, one TEST_CASE each below.
const std::set<std::string> kFamilies = {"elementwise", "comparison", "promotion", "reduction", "linalg",
                                         "view",        "copy",       "join",      "indexing",  "inplace",
                                         "factory",     "compare",    "error",     "edge",      "large"};

// Cases not replayed on CUDA, and why. An out-of-range index fails a device-side assertion
// there (as in PyTorch), not a brisk::Error, and leaves the CUDA context unusable for every
// case after it.
const char* const kDeviceAssert = "an out-of-range index is a device-side assertion on CUDA, not a brisk::Error";
const std::map<std::string, std::string> kCudaSkips = {
    {"error/gather_index_out_of_range", kDeviceAssert},
    {"error/gather_negative_index", kDeviceAssert},
    {"error/index_select_out_of_range", kDeviceAssert},
};

// Matrix products run on cuBLAS on CUDA, which has no integer products: Brisk's CUDA backend
// refuses them with a brisk::Error (cuda/gemm.cc), as PyTorch's does; both compute them on the
// CPU, where the fixture's values come from. So a case that multiplies integer matrices is not
// compared with PyTorch on CUDA; the replay checks the refusal instead.
const std::set<std::string> kCublasOps = {"matmul", "mm", "bmm", "addmm"};
const char* const kNoIntegerProducts = "cuBLAS has no integer products: CUDA refuses them, as in PyTorch";

bool is_integer_product(const json& c) {
  if (kCublasOps.count(c.at("op").get<std::string>()) == 0 || c.value("error", false)) return false;
  for (const json& spec : c.at("inputs")) {
    if (!is_floating_point(parse_dtype(spec.at("dtype").get<std::string>()))) return true;
  }
  return false;
}

// Why case `c` is not compared with PyTorch on CUDA; empty when it is.
std::string cuda_skip_reason(const json& c) {
  const auto skip = kCudaSkips.find(c.at("name").get<std::string>());
  if (skip != kCudaSkips.end()) return skip->second;
  return is_integer_product(c) ? kNoIntegerProducts : "";
}

void check_family(const std::string& family) {
  const std::string device = fmt::format("{}", test_device());
  int replayed = 0;
  for (const json& c : fixture().at("cases")) {
    if (c.at("family") != family) continue;
    const std::string name = c.at("name").get<std::string>();
    const auto runner = runners().find(c.at("op").get<std::string>());
    if (runner == runners().end()) continue;  // reported by the coverage test
    const std::string skip = test_device().is_cuda() ? cuda_skip_reason(c) : "";
    if (!skip.empty()) {
      WARN("case " << name << " is not compared with PyTorch on " << device << ": " << skip);
      if (!is_integer_product(c)) continue;
      // What is refused must be refused with a brisk::Error, as an error case is.
      json refused = c;
      refused["error"] = true;
      for (const Variant& variant : runner->second) {
        INFO("case " << name << " via " << variant.api << " on " << device << " must be refused");
        CHECK(replay(refused, variant) == "");
      }
      continue;
    }
    for (const Variant& variant : runner->second) {
      const std::string problem = replay(c, variant);
      INFO("case " << name << " via " << variant.api << " on " << device);
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
  std::set<std::string> names;
  for (const json& c : fixture().at("cases")) names.insert(c.at("name").get<std::string>());
  for (const auto& [name, why] : kCudaSkips) {
    INFO("skipped on CUDA: " << name);
    CHECK(names.count(name) == 1);
  }
  // The rule for integer products skips the fixture's integer matmul, and no float product.
  std::set<std::string> integer_products;
  for (const json& c : fixture().at("cases")) {
    if (is_integer_product(c)) integer_products.insert(c.at("name").get<std::string>());
  }
  CHECK(integer_products.count("linalg/matmul_int64") == 1);
  CHECK(integer_products.count("linalg/matmul_2d_2d_f32") == 0);
  CHECK(integer_products.count("error/mm_mixed_dtypes") == 0);
}

TEST_CASE("reference: elementwise arithmetic, math, activations, selection", "[reference]") {
  check_family("elementwise");
}
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
