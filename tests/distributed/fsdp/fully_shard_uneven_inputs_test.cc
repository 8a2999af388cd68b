// Uneven inputs under fully_shard without Join (which cannot shadow the units' collectives):
// when one rank runs out of batches, the rank still training fails within the group's timeout
// with an error naming the unit it was gathering and its rank, instead of hanging.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "tensor/native/ops.h"
#include "tests/distributed/ddp/thread_process_group.h"
#include "tests/distributed/fsdp/fsdp_training.h"

namespace brisk::dist::testing {
namespace {

using Catch::Matchers::Contains;

TEST_CASE("fully_shard: a rank that runs out of batches fails its peer within the timeout, naming the unit and rank",
          "[fsdp][join]") {
  const int world = 2;
  auto shared = std::make_shared<ThreadWorld>(world, std::chrono::seconds(2));
  std::vector<RepeatNet> models(world);
  std::vector<std::string> errors(world);
  std::vector<double> seconds(world);
  run_ranks(world, [&](int rank) {
    auto group = std::make_shared<ThreadProcessGroup>(shared, rank);
    RepeatNet& model = models[rank];
    const FullyShardOptions options = FullyShardOptions().group(group);
    fully_shard(*model->a, options);
    fully_shard(*model->b, options);
    fully_shard(*model.ptr(), options);
    const int batches = rank == 0 ? 2 : 1;  // rank 1 is done after its first batch
    const auto start = std::chrono::steady_clock::now();
    try {
      for (int i = 0; i < batches; ++i) model(native::ones({2, 8})).sum().backward();
    } catch (const std::exception& e) {
      errors[rank] = e.what();
    }
    seconds[rank] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  });
  CHECK(errors[1].empty());
  // Rank 0's second forward gathers the root unit first: rank 1 never joins that all_gather.
  CHECK_THAT(errors[0], Contains("the all_gather of unit") && Contains("failed on rank 0"));
  CHECK(seconds[0] < 20.0);  // the group's timeout (2 s) ended it, not a hang
}

}  // namespace
}  // namespace brisk::dist::testing
