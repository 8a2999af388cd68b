// Microbatches: tensor_split's rule (sizes differ by at most one, larger first), views of the
// batch, every tensor cut alike.
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "distributed/pipeline/microbatches.h"

namespace {

using namespace brisk;
using namespace brisk::dist::pipeline;
using Catch::Matchers::Contains;

TEST_CASE("Microbatch rows: m parts differing by at most one, the larger first", "[pipeline]") {
  CHECK(microbatch_rows(8, 4) == std::vector<int64_t>{2, 2, 2, 2});
  CHECK(microbatch_rows(10, 4) == std::vector<int64_t>{3, 3, 2, 2});
  CHECK(microbatch_rows(5, 4) == std::vector<int64_t>{2, 1, 1, 1});  // torch.chunk would give 3 parts
  CHECK(microbatch_rows(3, 1) == std::vector<int64_t>{3});
  CHECK_THROWS_WITH(microbatch_rows(3, 4), Contains("3 rows cannot make 4 microbatches"));
}

TEST_CASE("split_microbatches cuts every tensor along dim 0 into views", "[pipeline]") {
  Tensor x = arange(10, kInt64).reshape({5, 2});
  Tensor y = arange(5, kInt64);
  auto mbs = split_microbatches({x, y}, 2);
  REQUIRE(mbs.size() == 2);
  CHECK(mbs[0][0].sizes() == Shape{3, 2});
  CHECK(mbs[1][1].to_vector<int64_t>() == std::vector<int64_t>{3, 4});
  CHECK(mbs[1][0].to_vector<int64_t>() == std::vector<int64_t>{6, 7, 8, 9});
  mbs[0][1].fill_(-1);  // a view
  CHECK(y.to_vector<int64_t>()[0] == -1);
  CHECK_THROWS_WITH(split_microbatches({x, arange(4, kInt64)}, 2),
                    Contains("every tensor needs dim 0 of size 5 (the first's), got shape [4]"));
}

}  // namespace
