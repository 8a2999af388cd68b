// A rank that runs a fully_shard unit a different number of times than its peers ends in an
// error on every rank, naming the unit and the rank, never a hang (thread ranks: the group's
// collective check finds the all_gathers that no longer match).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tensor/native/ops.h"
#include "tests/distributed/ddp/thread_process_group.h"
#include "tests/distributed/fsdp/fsdp_training.h"

namespace brisk::dist::testing {
namespace {

using Catch::Matchers::Contains;

TEST_CASE("fully_shard: a rank running a unit once more fails every rank, naming the unit and the rank", "[fsdp]") {
  const int world = 2;
  auto shared = std::make_shared<ThreadWorld>(world, std::chrono::seconds(20));
  std::vector<RepeatNet> models(world);
  models[1]->repeat = true;
  std::vector<std::string> errors(world);
  run_ranks(world, [&](int rank) {
    auto group = std::make_shared<ThreadProcessGroup>(shared, rank);
    RepeatNet& model = models[rank];
    const FullyShardOptions options = FullyShardOptions().group(group);
    fully_shard(*model->a, options);
    fully_shard(*model->b, options);
    fully_shard(*model.ptr(), options);
    try {
      model(native::ones({2, 8})).sum().backward();
    } catch (const std::exception& e) {
      errors[rank] = e.what();
    }
  });
  // Rank 0 gathers b while rank 1 gathers a for the second time.
  CHECK_THAT(errors[0], Contains("the all_gather of unit b failed on rank 0"));
  CHECK_THAT(errors[1], Contains("the all_gather of unit a failed on rank 1"));
  for (const std::string& e : errors) CHECK_THAT(e, Contains("rank 0") && Contains("rank 1"));
}

}  // namespace
}  // namespace brisk::dist::testing
