// ColumnParallelLinear, RowParallelLinear and VocabParallelEmbedding on thread ranks, each on
// its own against the unsplit nn layer holding the same (loaded) state: local and global shapes
// and describe() for uneven splits, the unsplit state_dict in and out exactly, forward and every
// gradient (gathered) equal in float64, and the errors. tp_training_test trains whole models.
#include <catch2/catch.hpp>

#include <mutex>
#include <sstream>

#include "distributed/tensor_parallel/column_parallel_linear.h"
#include "distributed/tensor_parallel/full_state_dict.h"
#include "distributed/tensor_parallel/row_parallel_linear.h"
#include "distributed/tensor_parallel/vocab_parallel_embedding.h"
#include "nn/nn.h"
#include "tests/distributed/tensor_parallel/thread_group.h"
#include "tests/test_device.h"
#include "tests/thread_checks.h"

namespace brisk::dist::testing {
namespace {

using Catch::Matchers::Contains;
using namespace dist::tp;
using test::max_abs_diff;

TEST_CASE("Tensor-parallel layers report their local and global shapes, uneven splits included") {
  run_tp(3, [&](int rank, const GroupPtr& group) {
    ColumnParallelLinear column(ColumnParallelLinearOptions(16, 7), group);
    THREAD_CHECK(column->global_shape("weight") == Shape{7, 16});
    THREAD_CHECK(column->local_shape("weight") == Shape{rank < 2 ? 3 : 1, 16});
    THREAD_CHECK(column->weight.sizes() == column->local_shape("weight"));
    THREAD_CHECK(column->local_shape("bias") == Shape{rank < 2 ? 3 : 1});
    THREAD_CHECK(column->out_range().begin == 3 * rank);
    RowParallelLinear row(RowParallelLinearOptions(7, 5), group);
    THREAD_CHECK(row->local_shape("weight") == Shape{5, rank < 2 ? 3 : 1});
    THREAD_CHECK(row->local_shape("bias") == Shape{5});
    THREAD_CHECK(row->weight.sizes() == row->local_shape("weight"));
    VocabParallelEmbedding embed(VocabParallelEmbeddingOptions(10, 4), group);
    THREAD_CHECK(embed->local_shape() == Shape{rank < 2 ? 4 : 2, 4});
    THREAD_CHECK(embed->vocab_range().begin == 4 * rank);
    if (rank == 2) {
      THREAD_CHECK(column->describe() ==
                   "ColumnParallelLinear(in_features=16, out_features=7, bias=true, gather_output=false, "
                   "sequence_parallel=false) on tensor-parallel rank 2 of 3: weight [1, 16] of [7, 16] (dim 0 [6, "
                   "7)), bias [1] of [7] (dim 0 [6, 7))");
      THREAD_CHECK(row->describe() ==
                   "RowParallelLinear(in_features=7, out_features=5, bias=true, input_is_parallel=true, "
                   "sequence_parallel=false) on tensor-parallel rank 2 of 3: weight [5, 1] of [5, 7] (dim 1 [6, 7)), "
                   "bias [5] of [5] (whole on every rank)");
      std::ostringstream printed;
      printed << *embed;
      THREAD_CHECK(printed.str() ==
                   "VocabParallelEmbedding(num_embeddings=10, embedding_dim=4, sequence_parallel=false) on "
                   "tensor-parallel rank 2 of 3: weight [2, 4] of [10, 4] (dim 0 [8, 10))");
    }
    THREAD_CHECK_THROWS_WITH(column->global_shape("scale"), Contains("no parameter 'scale'; it has weight, bias"));
  });
}

// make() after manual_seed(seed), one thread at a time: thread ranks share the default
// generator, and each rank's unsplit layer must start alike.
std::mutex seed_mutex;
template <typename F>
auto seeded(uint64_t seed, F make) {
  std::lock_guard<std::mutex> lock(seed_mutex);
  manual_seed(seed);
  return make();
}

// make() holding the same lock, for constructors that draw from the default generator values
// nobody reads (a tensor-parallel layer's own initialization, which load_full_state_dict then
// overwrites): unlocked, those draws could land between another rank's manual_seed and its
// unsplit layer's draws, and the ranks' unsplit layers would differ.
template <typename F>
auto drawing_alone(F make) {
  std::lock_guard<std::mutex> lock(seed_mutex);
  return make();
}

// Every parameter's gradient of a tensor-parallel layer, gathered whole.
Tensor gathered_grad(const TensorParallelLayer& layer, const Tensor& param, const std::string& name) {
  for (const ParallelParameter& p : layer.parallel_parameters())
    if (p.name == name && p.split_dim >= 0)
      return all_gather_along(param.grad(), p.split_dim, *layer.group(), p.global_shape[p.split_dim]);
  return param.grad();
}

TEST_CASE("ColumnParallelLinear (gather_output) and RowParallelLinear (whole input) equal nn::Linear") {
  for (int world : {2, 3, 4}) {
    DYNAMIC_SECTION(world << " ranks") {
      run_tp(world, [&](int, const GroupPtr& group) {
        nn::Linear plain = seeded(3, [] { return nn::Linear(5, 7); });
        plain->to(kFloat64);
        test::LeafMaker leaf(8);
        const Tensor x = leaf({2, 3, 5});
        const Tensor x_plain = x.detach().clone().requires_grad_();
        const Tensor y_plain = plain(x_plain);
        (y_plain * y_plain).sum().backward();

        ColumnParallelLinear column =
            drawing_alone([&] { return ColumnParallelLinear(ColumnParallelLinearOptions(5, 7).gather_output(true), group); });
        column->to(kFloat64);
        load_full_state_dict(*column, plain->state_dict());
        const Tensor y = column(x);
        THREAD_CHECK(max_abs_diff(y, y_plain) < 1e-14);
        (y * y).sum().backward();
        THREAD_CHECK(max_abs_diff(x.grad(), x_plain.grad()) < 1e-13);
        THREAD_CHECK(max_abs_diff(gathered_grad(*column, column->weight, "weight"), plain->weight.grad()) < 1e-13);
        THREAD_CHECK(max_abs_diff(gathered_grad(*column, column->bias, "bias"), plain->bias.grad()) < 1e-13);

        RowParallelLinear row =
            drawing_alone([&] { return RowParallelLinear(RowParallelLinearOptions(5, 7).input_is_parallel(false), group); });
        row->to(kFloat64);
        load_full_state_dict(*row, plain->state_dict());
        const Tensor x2 = x.detach().clone().requires_grad_();
        const Tensor y2 = row(x2);
        THREAD_CHECK(max_abs_diff(y2, y_plain) < 1e-14);
        (y2 * y2).sum().backward();
        THREAD_CHECK(max_abs_diff(x2.grad(), x_plain.grad()) < 1e-13);
        THREAD_CHECK(max_abs_diff(gathered_grad(*row, row->weight, "weight"), plain->weight.grad()) < 1e-13);
        THREAD_CHECK(max_abs_diff(row->bias.grad(), plain->bias.grad()) < 1e-13);
      });
    }
  }
}

TEST_CASE("VocabParallelEmbedding equals nn::Embedding, with a rank that holds no row") {
  for (auto [world, vocab] : std::vector<std::pair<int, int64_t>>{{2, 7}, {3, 10}, {4, 5}}) {
    DYNAMIC_SECTION(world << " ranks, " << vocab << " rows") {
      run_tp(world, [&](int rank, const GroupPtr& group) {
        nn::Embedding plain = seeded(4, [&] { return nn::Embedding(vocab, 3); });
        plain->to(kFloat64);
        Generator generator(2);
        const Tensor ids = randint(vocab, {4, 6}, kInt64, &generator);
        const Tensor y_plain = plain(ids);
        (y_plain * y_plain).sum().backward();

        VocabParallelEmbedding embed =
            drawing_alone([&] { return VocabParallelEmbedding(VocabParallelEmbeddingOptions(vocab, 3), group); });
        embed->to(kFloat64);
        load_full_state_dict(*embed, plain->state_dict());
        if (vocab == 5 && rank == 3) THREAD_CHECK(embed->weight.size(0) == 0);
        const Tensor y = embed(ids);
        THREAD_CHECK(max_abs_diff(y, y_plain) < 1e-14);
        (y * y).sum().backward();
        THREAD_CHECK(max_abs_diff(all_gather_along(embed->weight.grad(), 0, *group, vocab), plain->weight.grad()) <
                     1e-13);
        THREAD_CHECK_THROWS_WITH(embed(full({2}, vocab, kInt64)),
                                 Contains("ids range over [" + std::to_string(vocab) + ", "));
      });
    }
  }
}

TEST_CASE("The unsplit state_dict goes in and comes back exactly; a wrong shape is named") {
  run_tp(3, [&](int, const GroupPtr& group) {
    nn::Sequential plain = seeded(6, [] { return nn::Sequential(nn::Linear(4, 7), nn::Linear(7, 5)); });
    nn::Sequential split = drawing_alone([&] {
      return nn::Sequential(ColumnParallelLinear(ColumnParallelLinearOptions(4, 7), group),
                            RowParallelLinear(RowParallelLinearOptions(7, 5), group));
    });
    load_full_state_dict(*split, plain->state_dict());
    const nn::StateDict back = full_state_dict(*split);
    const nn::StateDict original = plain->state_dict();
    THREAD_CHECK(back.keys() == original.keys());
    for (const auto& [key, value] : original) THREAD_CHECK(max_abs_diff(back[key], value) == 0);

    nn::StateDict wrong = plain->state_dict();
    wrong["0.weight"] = zeros({6, 4});
    THREAD_CHECK_THROWS_WITH(load_full_state_dict(*split, wrong),
                             Contains("'0.weight' is [6, 4] float32 cpu, the unsplit layer's is [7, 4]"));
  });
}

TEST_CASE("Tensor-parallel layers name a wrong input and an impossible option") {
  run_tp(2, [&](int, const GroupPtr& group) {
    RowParallelLinear row(RowParallelLinearOptions(7, 5), group);
    THREAD_CHECK_THROWS_WITH(row(zeros({2, 7})), Contains(" features of tensor-parallel rank "));
    THREAD_CHECK_THROWS_WITH(
        RowParallelLinear(RowParallelLinearOptions(7, 5).input_is_parallel(false).sequence_parallel(true), group),
        Contains("sequence_parallel needs input_is_parallel"));
  });
}

}  // namespace
}  // namespace brisk::dist::testing
