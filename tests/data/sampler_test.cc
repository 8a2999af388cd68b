// Samplers: the order of an epoch, reshuffled per epoch, reproducible from the seed.
#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>

#include "data/sampler.h"

using namespace brisk::data;

TEST_CASE("SequentialSampler gives 0..n-1 every epoch", "[data][sampler]") {
  SequentialSampler s(5);
  CHECK(s.size() == 5);
  CHECK(s.indices() == std::vector<int64_t>{0, 1, 2, 3, 4});
  s.set_epoch(3);
  CHECK(s.indices() == std::vector<int64_t>{0, 1, 2, 3, 4});
  CHECK(SequentialSampler(0).indices().empty());
}

TEST_CASE("RandomSampler permutes, per epoch, as the seed decides", "[data][sampler]") {
  RandomSampler a(100, 42);
  std::vector<int64_t> epoch0 = a.indices();
  std::vector<int64_t> sorted = epoch0;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> all(100);
  std::iota(all.begin(), all.end(), 0);
  CHECK(sorted == all);
  CHECK(epoch0 != all);
  CHECK(a.indices() == epoch0);  // the same until the epoch changes

  a.set_epoch(1);
  std::vector<int64_t> epoch1 = a.indices();
  CHECK(epoch1 != epoch0);

  // Another sampler of the same seed agrees epoch by epoch, in any order of visits.
  RandomSampler b(100, 42);
  b.set_epoch(1);
  CHECK(b.indices() == epoch1);
  b.set_epoch(0);
  CHECK(b.indices() == epoch0);
  CHECK(RandomSampler(100, 43).indices() != epoch0);
}
