// One rank of a sharded checkpoint across processes, started by the launcher:
//
//   launch --nproc-per-node 4 tests/checkpoint/sharded/sharded_checkpoint_worker [--device cpu|sim] save:DIR
//   launch --nproc-per-node 3 tests/checkpoint/sharded/sharded_checkpoint_worker [--device cpu|sim] load:DIR
//
//   save:DIR  every rank saves its part of sharded_test_state.h's tensors (dim0_shard rows of
//             this world size, on the group's device) into DIR; prints "save ok"
//   load:DIR  every rank loads its rows for this world size from DIR into zeroed tensors on
//             the group's device and compares them with what they must be; prints "load ok",
//             or "load FAILED" and the first entry that differs
// An error (a missing rank file, a peer's failure) ends the worker with status 1 and
// "error: <what>" on stderr.
#include <cstdio>
#include <string>

#include "checkpoint/sharded/save_sharded.h"
#include "checkpoint/sharded/sharded_reader.h"
#include "tensor/native/ops.h"
#include "tests/checkpoint/sharded/sharded_test_state.h"
#include "tests/distributed/testing/worker_group.h"

namespace {

using namespace brisk;

// Rank's part of the test state on `device`.
checkpoint::ShardedStateDict on_device(checkpoint::ShardedStateDict state, Device device) {
  for (auto& [name, entry] : state) entry.local = entry.local.to(device);
  return state;
}

int run(const std::string& scenario, const std::shared_ptr<dist::ProcessGroup>& group) {
  const size_t colon = scenario.find(':');
  const std::string what = scenario.substr(0, colon);
  const std::string dir = colon == std::string::npos ? "" : scenario.substr(colon + 1);
  const int rank = group->rank(), world = group->size();
  if (what == "save") {
    checkpoint::save_sharded(dir, on_device(checkpoint::testing::rank_state(rank, world), group->device()), *group);
    std::printf("save ok\n");
    return 0;
  }
  if (what == "load") {
    checkpoint::ShardedStateDict state = on_device(checkpoint::testing::zero_state(rank, world), group->device());
    checkpoint::load_sharded(dir, state, group.get());
    for (const auto& [name, expected] : checkpoint::testing::rank_state(rank, world)) {
      const Tensor got = state[name].local.to(kCPU);
      if (got.sizes() != expected.local.sizes() || !native::equal(got, expected.local)) {
        std::printf("load FAILED: entry %s\n", name.c_str());
        return 1;
      }
    }
    std::printf("load ok\n");
    return 0;
  }
  std::fprintf(stderr, "unknown scenario %s\n", scenario.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) { return brisk::dist::testing::worker_main(argc, argv, "save:DIR|load:DIR", run); }
