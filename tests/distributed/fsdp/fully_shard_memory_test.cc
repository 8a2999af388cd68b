// fully_shard's memory during backward, on one thread rank (its allocations are the process's):
// each unit's full gradients, packed for the reduce_scatter, are freed once the next unit's
// reduction is issued, so backward holds the gradient shards plus about two units' full
// gradients, not every unit's until backward ends.
#include <catch2/catch.hpp>

#include <vector>

#include "distributed/fsdp/fully_shard.h"
#include "models/mlp.h"
#include "tensor/memory.h"
#include "tensor/native/ops.h"
#include "tests/distributed/ddp/thread_process_group.h"

namespace brisk::dist::testing {
namespace {

TEST_CASE("fully_shard frees each unit's full gradients during backward, not at its end", "[fsdp]") {
  const int layers = 12;
  models::MLP model(models::MLPOptions(64, 64).hidden(std::vector<int64_t>(layers - 1, 64)));
  auto shared = std::make_shared<ThreadWorld>(1, std::chrono::seconds(20));
  auto group = std::make_shared<ThreadProcessGroup>(shared, 0);
  for (const auto& layer : model->layers->children()) fully_shard(*layer, FullyShardOptions().group(group));
  fully_shard(*model, FullyShardOptions().group(group));
  // What one unit's full gradients take in the allocator (its size class).
  const size_t unit_bytes = [] {
    const size_t before = memory_allocated(kCPU);
    Tensor t = native::empty({64 * 64 + 64}, kFloat32);
    return memory_allocated(kCPU) - before;
  }();

  for (int iteration = 0; iteration < 2; ++iteration) {
    Tensor loss = model(native::ones({2, 64}, kFloat32)).sum();
    const size_t before = memory_allocated(kCPU);
    reset_peak_memory_stats(kCPU);
    loss.backward();
    const size_t extra = max_memory_allocated(kCPU) - before;
    INFO("iteration " << iteration << ": backward held " << extra << " bytes more, a unit's gradients are "
                      << unit_bytes);
    // The gradient shards (world 1: all of every unit) stay; of the packed full gradients at
    // most two units' are alive at once, plus the gradients being computed and packed (measured:
    // 16.5 units). Keeping every unit's packed gradients until the end of backward would hold at
    // least 2 * layers units.
    CHECK(extra < (layers + 6) * unit_bytes);
  }
}

}  // namespace
}  // namespace brisk::dist::testing
