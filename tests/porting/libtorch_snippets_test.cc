// Runs the libtorch snippet corpus (libtorch_snippets.cc, compiled against Brisk with
// `namespace torch = brisk;`) and compares every snippet's records with what the same source
// recorded against libtorch (tests/fixtures/libtorch_snippets.jsonl,
// tools/fixtures/gen_libtorch_snippets.sh): same keys in the same order, same dtypes and
// shapes, values equal (integers and bools exactly, floats to their precision).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/porting/snippet.h"
#include "tests/porting/snippet_records.h"
#include "tests/scratch_files.h"

namespace {

using nlohmann::json;

double number(const json& v) {
  if (!v.is_string()) return v.get<double>();
  const std::string& s = v.get_ref<const std::string&>();
  if (s == "nan") return std::nan("");
  return s == "inf" ? INFINITY : -INFINITY;
}

// libtorch's records, by snippet, in the order it recorded them.
const std::map<std::string, std::vector<json>>& libtorch_records() {
  static const std::map<std::string, std::vector<json>> records = [] {
    std::map<std::string, std::vector<json>> by_snippet;
    std::ifstream in("tests/fixtures/libtorch_snippets.jsonl");
    if (!in.good()) throw std::runtime_error("cannot open tests/fixtures/libtorch_snippets.jsonl");
    std::string line;
    while (std::getline(in, line)) {
      json r = json::parse(line);
      by_snippet[r.at("snippet").get<std::string>()].push_back(std::move(r));
    }
    return by_snippet;
  }();
  return records;
}

// Relative tolerance of a dtype's values: libtorch and Brisk may order float sums differently.
double tolerance(const std::string& dtype) {
  if (dtype == "float64") return 1e-12;
  if (dtype == "float32" || dtype == "scalar") return 2e-6;
  if (dtype == "float16" || dtype == "bfloat16") return 1e-3;
  return 0;  // integers and bools
}

void compare(const json& expected, const porting::Record& actual) {
  const std::string key = expected.at("key").get<std::string>();
  INFO("record \"" << key << "\"");
  REQUIRE(actual.key == key);
  CHECK(actual.dtype == expected.at("dtype").get<std::string>());
  CHECK(actual.shape == expected.at("shape").get<std::vector<int64_t>>());
  CHECK(actual.strings == expected.at("strings").get<std::vector<std::string>>());
  const json& values = expected.at("values");
  REQUIRE(actual.values.size() == values.size());
  const double rtol = tolerance(actual.dtype);
  for (size_t i = 0; i < values.size(); ++i) {
    const double want = number(values[i]);
    const double got = actual.values[i];
    INFO("element " << i << ": Brisk " << got << ", libtorch " << want);
    if (std::isnan(want)) {
      CHECK(std::isnan(got));
    } else {
      CHECK(std::abs(got - want) <= rtol * std::max(1.0, std::abs(want)));
    }
  }
}

}  // namespace

TEST_CASE("every snippet of the corpus has libtorch's records, and the other way round") {
  std::vector<std::string> ours;
  for (const porting::Snippet& s : porting::snippets()) ours.push_back(s.name);
  std::vector<std::string> theirs;
  for (const auto& [name, records] : libtorch_records()) theirs.push_back(name);
  std::sort(ours.begin(), ours.end());
  CHECK(ours == theirs);
  CHECK(ours.size() >= 40);
}

TEST_CASE("libtorch snippets compiled against Brisk record what libtorch records") {
  for (const porting::Snippet& snippet : porting::snippets()) {
    DYNAMIC_SECTION(snippet.name) {
      auto it = libtorch_records().find(snippet.name);
      REQUIRE(it != libtorch_records().end());
      porting::records().clear();
      torch::manual_seed(0);
      snippet.run(brisk::testing::scratch_dir("snippet_" + snippet.name));
      const std::vector<porting::Record>& actual = porting::records();
      const std::vector<json>& expected = it->second;
      CHECK(actual.size() == expected.size());
      for (size_t i = 0; i < std::min(actual.size(), expected.size()); ++i) compare(expected[i], actual[i]);
    }
  }
}
