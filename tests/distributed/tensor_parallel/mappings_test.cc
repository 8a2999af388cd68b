// The differentiable collectives of tensor parallelism (distributed/tensor_parallel/mappings.h)
// on 2, 3 and 4 thread ranks, with parts of uneven sizes: each conjugate pair, composed into a
// function of the whole input whose value is the same on every rank, equals that function
// computed in one process, and passes a float64 gradcheck (and gradgradcheck) run on every rank
// at once: the numerical Jacobian perturbs the input of every rank together, the analytical one
// is the distributed backward.
#include <catch2/catch.hpp>

#include "autograd/gradcheck.h"
#include "distributed/tensor_parallel/mappings.h"
#include "distributed/tensor_parallel/uneven_split.h"
#include "tests/distributed/tensor_parallel/thread_group.h"
#include "tests/test_device.h"
#include "tests/thread_checks.h"

namespace brisk::dist::testing {
namespace {

using autograd::gradcheck;
using autograd::gradgradcheck;
using namespace dist::tp;

// Rank r's own factor, the same draw on every thread.
Tensor rank_factor(const Shape& shape, int rank) {
  Generator generator(100 + rank);
  return randn(shape, kFloat64, &generator);
}

// The sum over ranks of their factors.
Tensor factor_sum(const Shape& shape, int world) {
  Tensor sum = zeros(shape, kFloat64);
  for (int r = 0; r < world; ++r) sum = sum + rank_factor(shape, r);
  return sum;
}

TEST_CASE("copy_to_region and reduce_from_region: the sum over ranks, gradchecked on 2, 3, 4 ranks") {
  for (int world : {2, 3, 4}) {
    DYNAMIC_SECTION(world << " ranks") {
      run_tp(world, [&](int rank, const GroupPtr& group) {
        test::LeafMaker leaf(13);
        const Tensor x = leaf({3, 4});
        const Tensor w = rank_factor({3, 4}, rank);
        auto fn = [&](const std::vector<Tensor>& in) {
          return reduce_from_region(copy_to_region(in[0], group) * w, group);
        };
        THREAD_CHECK(test::max_abs_diff(fn({x}), x * factor_sum({3, 4}, world)) < 1e-14);
        THREAD_CHECK(gradcheck(fn, {x}));
        auto cubic = [&](const std::vector<Tensor>& in) {
          return reduce_from_region(copy_to_region(in[0], group).pow(3) * w, group);
        };
        THREAD_CHECK(gradgradcheck(cubic, {x}));
      });
    }
  }
}

// x * w_r on rank r's part of dim, as one process computes it.
Tensor partwise(const Tensor& x, int64_t dim, int world) {
  std::vector<Tensor> parts;
  for (int r = 0; r < world; ++r) {
    const RowRange range = split_range(x.size(dim), world, r);
    parts.push_back((x * rank_factor(x.sizes(), r)).narrow(dim, range.begin, range.rows));
  }
  return cat(parts, dim);
}

TEST_CASE("scatter_to_region and gather_from_region over uneven parts, along the last dim and dim 0") {
  for (int world : {2, 3, 4}) {
    for (int64_t dim : {-1, 0}) {
      DYNAMIC_SECTION(world << " ranks, dim " << dim) {
        run_tp(world, [&](int rank, const GroupPtr& group) {
          test::LeafMaker leaf(13);
          const Tensor x = leaf(dim == 0 ? Shape{7, 3} : Shape{3, 7});  // 7: parts 4 3 / 3 3 1 / 2 2 2 1
          const Tensor w = local_part(rank_factor(x.sizes(), rank), dim, *group);
          // Dim 0 gathers without its size, exchanging the parts' sizes.
          const int64_t full_size = dim == 0 ? -1 : 7;
          auto fn = [&](const std::vector<Tensor>& in) {
            return gather_from_region(scatter_to_region(in[0], group, dim) * w, group, dim, full_size);
          };
          THREAD_CHECK(test::max_abs_diff(fn({x}), partwise(x.detach(), dim, world)) < 1e-14);
          THREAD_CHECK(gradcheck(fn, {x}));
          auto cubic = [&](const std::vector<Tensor>& in) {
            return gather_from_region(scatter_to_region(in[0], group, dim).pow(3) * w, group, dim, full_size);
          };
          THREAD_CHECK(gradgradcheck(cubic, {x}));
        });
      }
    }
  }
}

TEST_CASE("gather_from_sequence_region and reduce_scatter_to_sequence_region over uneven rows") {
  for (int world : {2, 3, 4}) {
    DYNAMIC_SECTION(world << " ranks") {
      run_tp(world, [&](int rank, const GroupPtr& group) {
        test::LeafMaker leaf(13);
        const Tensor x = leaf({5, 3});  // 5 rows: 3 2 / 2 2 1 / 2 2 1 0
        const Tensor w = rank_factor({5, 3}, rank);
        // Rank's rows -> all rows (gather, its backward a reduce-scatter) -> times w_r -> rank's
        // rows of the sum over ranks (reduce-scatter, its backward a gather) -> all rows again.
        auto through = [&](const Tensor& in, bool cube) {
          Tensor rows = scatter_to_region(in, group, 0);
          Tensor all = gather_from_sequence_region(rows, group);
          if (cube) all = all.pow(3);
          return gather_from_region(reduce_scatter_to_sequence_region(all * w, group), group, 0, 5);
        };
        auto fn = [&](const std::vector<Tensor>& in) { return through(in[0], false); };
        THREAD_CHECK(test::max_abs_diff(fn({x}), x * factor_sum({5, 3}, world)) < 1e-14);
        THREAD_CHECK(gradcheck(fn, {x}));
        THREAD_CHECK(gradgradcheck([&](const std::vector<Tensor>& in) { return through(in[0], true); }, {x}));
      });
    }
  }
}

TEST_CASE("The uneven collectives name a part that breaks the split rule") {
  run_tp(2, [&](int rank, const GroupPtr& group) {
    // Parts of 1 and 3 rows: not torch.chunk's split of 4 (2, 2).
    const Tensor part = zeros({rank == 0 ? 1 : 3, 2}, kFloat64);
    THREAD_CHECK_THROWS_WITH(all_gather_along(part, 0, *group),
                             Catch::Contains("parts of sizes [1, 3], which is not torch.chunk's split of 4 over 2"));
    THREAD_CHECK_THROWS_WITH(all_gather_along(zeros({3, 2}, kFloat64), 0, *group, 4),
                             Catch::Contains("holds 3 along dim 0"));
  });
}

}  // namespace
}  // namespace brisk::dist::testing
