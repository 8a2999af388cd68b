// tp::vocab_parallel_cross_entropy on 2, 3 and 4 thread ranks (11 classes: uneven parts; 3
// classes on 4 ranks: a rank with none): equal to F::cross_entropy of the whole logits, with a
// float64 gradcheck through the split of the whole logits, and its errors.
#include <catch2/catch.hpp>

#include "autograd/gradcheck.h"
#include "distributed/tensor_parallel/mappings.h"
#include "distributed/tensor_parallel/uneven_split.h"
#include "distributed/tensor_parallel/vocab_parallel_cross_entropy.h"
#include "nn/functional.h"
#include "tests/distributed/tensor_parallel/thread_group.h"
#include "tests/test_device.h"
#include "tests/thread_checks.h"

namespace brisk::dist::testing {
namespace {

using namespace dist::tp;

TEST_CASE("vocab_parallel_cross_entropy equals cross_entropy of the gathered logits, gradchecked") {
  for (int world : {2, 3, 4}) {
    for (int64_t vocab : {11, 3}) {
      if (vocab == 3 && world != 4) continue;
      DYNAMIC_SECTION(world << " ranks, " << vocab << " classes") {
        run_tp(world, [&](int, const GroupPtr& group) {
          test::LeafMaker leaf(5);
          const Tensor logits = leaf({2, 3, vocab}, 3.0);  // [*, vocab] with two leading dims
          Generator generator(9);
          const Tensor targets = randint(vocab, {2, 3}, kInt64, &generator);
          auto fn = [&](const std::vector<Tensor>& in) {
            return vocab_parallel_cross_entropy(scatter_to_region(in[0], group), targets, group);
          };
          const Tensor expected =
              nn::functional::cross_entropy(logits.detach().reshape({-1, vocab}), targets.reshape({-1}));
          THREAD_CHECK(test::max_abs_diff(fn({logits}), expected) < 1e-14);
          THREAD_CHECK(autograd::gradcheck(fn, {logits}));
        });
      }
    }
  }
}

TEST_CASE("vocab_parallel_cross_entropy: large logits stay finite (the max is subtracted)") {
  run_tp(2, [&](int, const GroupPtr& group) {
    Tensor logits = full({1, 4}, 1000.0, kFloat64);
    logits.narrow(1, 3, 1).fill_(1001.0);
    const Tensor targets = full({1}, 3, kInt64);
    const Tensor loss = vocab_parallel_cross_entropy(local_part(logits, -1, *group), targets, group, 4);
    THREAD_CHECK(std::abs(loss.item<double>() - nn::functional::cross_entropy(logits, targets).item<double>()) < 1e-12);
  });
}

TEST_CASE("vocab_parallel_cross_entropy names wrong targets and a part of the wrong size") {
  run_tp(2, [&](int rank, const GroupPtr& group) {
    const Tensor logits = zeros({2, rank == 0 ? 3 : 2}, kFloat64);  // a vocabulary of 5
    THREAD_CHECK_THROWS_WITH(vocab_parallel_cross_entropy(logits, full({2}, 5, kInt64), group, 5),
                             Catch::Contains("targets range over [5, 5], outside the vocabulary [0, 5)"));
    THREAD_CHECK_THROWS_WITH(vocab_parallel_cross_entropy(logits, zeros({3}, kInt64), group, 5),
                             Catch::Contains("expected int64 targets shaped like the logits without their last dim"));
    // Both ranks' parts are wrong for 7 (4, 3), so neither enters the collectives.
    THREAD_CHECK_THROWS_WITH(vocab_parallel_cross_entropy(logits, zeros({2}, kInt64), group, 7),
                             Catch::Contains("logits per row; its part of a vocabulary of 7 is"));
  });
}

}  // namespace
}  // namespace brisk::dist::testing
