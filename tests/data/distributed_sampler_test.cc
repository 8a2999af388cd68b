// DistributedSampler and torch_randperm against PyTorch's index lists
// (tests/fixtures/distributed_sampler.json, from tools/fixtures/gen_sampler_fixtures.py), and
// the properties every rank relies on: disjoint shares that cover the dataset, determinism,
// a new order per epoch.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "data/distributed_sampler.h"
#include "data/torch_randperm.h"
#include "tensor/error.h"

using namespace brisk::data;
using json = nlohmann::json;

namespace {

const json& fixture() {
  static const json parsed = [] {
    std::ifstream in("tests/fixtures/distributed_sampler.json");
    REQUIRE(in.good());
    return json::parse(in);
  }();
  return parsed;
}

std::vector<int64_t> all_ranks(int64_t size, int64_t replicas, DistributedSamplerOptions options, int64_t epoch) {
  std::vector<int64_t> all;
  for (int64_t rank = 0; rank < replicas; ++rank) {
    DistributedSampler sampler(size, replicas, rank, options);
    sampler.set_epoch(epoch);
    std::vector<int64_t> mine = sampler.indices();
    all.insert(all.end(), mine.begin(), mine.end());
  }
  return all;
}

}  // namespace

TEST_CASE("torch_randperm: PyTorch's CPU randperm, permutation for permutation", "[data][distributed]") {
  for (const json& c : fixture()["randperm"]) {
    INFO("n " << c["n"] << " seed " << c["seed"]);
    CHECK(torch_randperm(c["n"].get<int64_t>(), c["seed"].get<uint64_t>()) == c["perm"].get<std::vector<int64_t>>());
  }
}

TEST_CASE("DistributedSampler: PyTorch's index lists for every rank", "[data][distributed]") {
  REQUIRE(fixture()["sampler"].size() >= 10);
  for (const json& c : fixture()["sampler"]) {
    int64_t replicas = c["num_replicas"];
    auto options = DistributedSamplerOptions()
                       .shuffle(c["shuffle"].get<bool>())
                       .seed(c["seed"].get<uint64_t>())
                       .drop_last(c["drop_last"].get<bool>());
    for (int64_t rank = 0; rank < replicas; ++rank) {
      INFO(c["size"] << " examples, " << replicas << " replicas, rank " << rank << ", shuffle " << c["shuffle"]
                     << ", seed " << c["seed"] << ", drop_last " << c["drop_last"] << ", epoch " << c["epoch"]);
      DistributedSampler sampler(c["size"].get<int64_t>(), replicas, rank, options);
      sampler.set_epoch(c["epoch"].get<int64_t>());
      auto expected = c["indices"][rank].get<std::vector<int64_t>>();
      CHECK(sampler.indices() == expected);
      CHECK(sampler.size() == static_cast<int64_t>(expected.size()));
    }
  }
}

TEST_CASE("DistributedSampler: ranks share an epoch without overlap; padding repeats the start",
          "[data][distributed]") {
  // 103 over 4: 26 each, 104 in all, the first index of the order repeated once.
  auto options = DistributedSamplerOptions().seed(9);
  std::vector<int64_t> all = all_ranks(103, 4, options, 5);
  REQUIRE(all.size() == 104);
  std::multiset<int64_t> counts(all.begin(), all.end());
  for (int64_t i = 0; i < 103; ++i) CHECK(counts.count(i) == (i == torch_randperm(103, 9 + 5)[0] ? 2u : 1u));

  std::vector<int64_t> dropped = all_ranks(103, 4, options.drop_last(true), 5);
  REQUIRE(dropped.size() == 100);
  CHECK(std::set<int64_t>(dropped.begin(), dropped.end()).size() == 100);
}

TEST_CASE("DistributedSampler: the order depends on seed and epoch only", "[data][distributed]") {
  DistributedSampler a(50, 2, 1, DistributedSamplerOptions().seed(3));
  DistributedSampler b(50, 2, 1, DistributedSamplerOptions().seed(3));
  a.set_epoch(4);
  b.set_epoch(4);
  CHECK(a.indices() == b.indices());
  std::vector<int64_t> epoch4 = a.indices();
  a.set_epoch(5);
  CHECK(a.indices() != epoch4);
  DistributedSampler other_seed(50, 2, 1, DistributedSamplerOptions().seed(4));
  other_seed.set_epoch(4);
  CHECK(other_seed.indices() != epoch4);
  // seed + epoch is the generator's seed, as in PyTorch: (3, 4) and (4, 3) coincide.
  other_seed.set_epoch(3);
  CHECK(other_seed.indices() == epoch4);
  // Without shuffle every epoch is the same.
  DistributedSampler plain(50, 2, 1, DistributedSamplerOptions().shuffle(false));
  std::vector<int64_t> first = plain.indices();
  plain.set_epoch(7);
  CHECK(plain.indices() == first);
}

TEST_CASE("DistributedSampler: sizes, and errors that name the bad argument", "[data][distributed]") {
  DistributedSampler padded(10, 3, 0, DistributedSamplerOptions());
  CHECK(padded.size() == 4);
  CHECK(padded.total_size() == 12);
  DistributedSampler dropped(10, 3, 2, DistributedSamplerOptions().drop_last(true));
  CHECK(dropped.size() == 3);
  CHECK(dropped.total_size() == 9);
  DistributedSampler empty(0, 2, 1);
  CHECK(empty.indices().empty());
  CHECK_THROWS_WITH(DistributedSampler(10, 2, 2), Catch::Contains("rank 2 is outside [0, 2)"));
  CHECK_THROWS_WITH(DistributedSampler(10, 0, 0), Catch::Contains("num_replicas must be positive, got 0"));
  CHECK_THROWS_WITH(DistributedSampler(-1, 2, 0), Catch::Contains("must be non-negative, got -1"));
}
