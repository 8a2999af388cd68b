// Sharded checkpoints (checkpoint/sharded/): 4 ranks save, 1, 2, 3 and 4 ranks load their own
// rows (dim0_shard of their world size) or whole tensors; the index records how the rows were
// split; a save over an older checkpoint replaces it atomically. Thread ranks, on the CPU.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "checkpoint/sharded/save_sharded.h"
#include "checkpoint/sharded/sharded_reader.h"
#include "tests/checkpoint/file_util.h"
#include "tests/checkpoint/sharded/sharded_test_state.h"
#include "tests/distributed/ddp/thread_process_group.h"

namespace brisk::checkpoint {
namespace {

using dist::testing::run_ranks;
using dist::testing::ThreadProcessGroup;
using dist::testing::ThreadWorld;
using testing::full_state;
using testing::rank_state;
using testing::zero_state;

bool same(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() && native::equal(a, b);
}

void save_over(const std::string& dir, int world_size, double seed = 0) {
  auto world = std::make_shared<ThreadWorld>(world_size);
  run_ranks(world_size, [&](int rank) {
    ThreadProcessGroup group(world, rank);
    save_sharded(dir, rank_state(rank, world_size, seed), group, {{"note", "hello"}});
  });
}

TEST_CASE("a checkpoint saved by 4 ranks loads on 1, 2, 3 and 4 ranks, each reading its own rows",
          "[checkpoint][sharded]") {
  const std::string dir = checkpoint::testing::scratch_dir("sharded_4") + "/ckpt";
  save_over(dir, 4);
  for (int world_size : {1, 2, 3, 4}) {
    DYNAMIC_SECTION("load on " << world_size) {
      auto world = std::make_shared<ThreadWorld>(world_size);
      run_ranks(world_size, [&](int rank) {
        ThreadProcessGroup group(world, rank);
        ShardedStateDict state = zero_state(rank, world_size);
        load_sharded(dir, state, &group);
        const ShardedStateDict expected = rank_state(rank, world_size);
        for (const auto& [name, entry] : expected) {
          THREAD_CHECK(same(state[name].local, entry.local));
        }
      });
    }
  }
}

TEST_CASE("the index records each entry's global shape, dtype and which rank holds which rows",
          "[checkpoint][sharded]") {
  const std::string dir = checkpoint::testing::scratch_dir("sharded_index") + "/ckpt";
  save_over(dir, 4);
  ShardedReader reader(dir);
  const ShardedIndex& index = reader.index();
  CHECK(index.world_size == 4);
  CHECK(index.generation == 1);
  CHECK(index.metadata.at("note") == "hello");
  REQUIRE(index.files.size() == 4);
  CHECK(index.files[3] == "rank-00003-of-00004.gen-1.safetensors");
  const IndexEntry* weight = reader.find("fc.weight");
  REQUIRE(weight != nullptr);
  CHECK(weight->shape == Shape{10, 3});
  CHECK(weight->dtype == kFloat64);
  REQUIRE(weight->shards.size() == 4);
  CHECK(weight->shards[3].rank == 3);
  CHECK(weight->shards[3].rows.begin == 9);
  CHECK(weight->shards[3].rows.rows == 1);
  const IndexEntry* bias = reader.find("fc.bias");
  REQUIRE(bias != nullptr);
  CHECK(bias->shards.size() == 3);  // rank 3 holds none of its 5 rows
  const IndexEntry* tiny = reader.find("tiny");
  REQUIRE(tiny != nullptr);
  CHECK(tiny->dtype == kBFloat16);
  CHECK(tiny->shards.size() == 2);
  const IndexEntry* counter = reader.find("counter");
  REQUIRE(counter != nullptr);
  CHECK(counter->replicated);
  REQUIRE(counter->shards.size() == 1);
  CHECK(counter->shards[0].rank == 0);
  CHECK(reader.find("empty")->shards.empty());
  // Whole tensors, as a single process reads them.
  for (const auto& [name, full] : full_state()) CHECK(same(reader.read(name), full));
  CHECK(same(reader.read("counter"), testing::counter()));
  // Rows across the boundary of ranks 1 and 2 (rows 3-5 and 6-8 of fc.weight).
  CHECK(same(reader.read("fc.weight", {5, 3}), native::narrow(full_state()["fc.weight"], 0, 5, 3)));
}

TEST_CASE("an unsharded state dict saves and loads whole (a world of one)", "[checkpoint][sharded]") {
  const std::string dir = checkpoint::testing::scratch_dir("sharded_1") + "/ckpt";
  auto world = std::make_shared<ThreadWorld>(1);
  ThreadProcessGroup group(world, 0);
  save_sharded(dir, replicated(full_state(3)), group);
  nn::StateDict loaded = full_state();
  ShardedStateDict into = replicated(loaded);
  load_sharded(dir, into);
  for (const auto& [name, full] : full_state(3)) CHECK(same(loaded[name], full));
}

TEST_CASE("a save over an older checkpoint replaces it: the next generation, old files removed",
          "[checkpoint][sharded]") {
  const std::string dir = checkpoint::testing::scratch_dir("sharded_over") + "/ckpt";
  save_over(dir, 4, 0);
  save_over(dir, 3, 50);
  ShardedReader reader(dir);
  CHECK(reader.index().generation == 2);
  CHECK(reader.index().world_size == 3);
  for (const auto& [name, full] : full_state(50)) CHECK(same(reader.read(name), full));
  std::vector<std::string> files = checkpoint::testing::list_dir(dir);
  std::sort(files.begin(), files.end());
  CHECK(files == std::vector<std::string>{"index.json", "rank-00000-of-00003.gen-2.safetensors",
                                          "rank-00001-of-00003.gen-2.safetensors",
                                          "rank-00002-of-00003.gen-2.safetensors"});
}

TEST_CASE("a save over a checkpoint whose index is corrupt replaces it", "[checkpoint][sharded]") {
  const std::string dir = checkpoint::testing::scratch_dir("sharded_over_corrupt") + "/ckpt";
  save_over(dir, 2, 0);
  checkpoint::testing::write_bytes(dir + "/index.json", {'{', 'x'});
  CHECK_THROWS_WITH(ShardedReader(dir), Catch::Contains("not valid JSON"));
  save_over(dir, 2, 4);
  ShardedReader reader(dir);
  CHECK(reader.index().generation == 2);
  for (const auto& [name, full] : full_state(4)) CHECK(same(reader.read(name), full));
}

TEST_CASE("a save that fails on one rank fails on every rank, naming it, and leaves the older checkpoint",
          "[checkpoint][sharded]") {
  const std::string dir = checkpoint::testing::scratch_dir("sharded_fail") + "/ckpt";
  save_over(dir, 2, 0);
  auto world = std::make_shared<ThreadWorld>(3);
  run_ranks(3, [&](int rank) {
    ThreadProcessGroup group(world, rank);
    ShardedStateDict state = rank_state(rank, 3, 9);
    // Rank 2's file cannot be written: a tensor name safetensors reserves.
    if (rank == 2) state.insert("__metadata__", sharded(testing::counter(), {3}, {0, 3}));
    THREAD_CHECK_THROWS_WITH(
        save_sharded(dir, state, group),
        rank == 2 ? Catch::Contains("on rank 2: writing its file") && Catch::Contains("invalid tensor name")
                  : Catch::Contains("rank(s) 2 failed") && Catch::Contains(dir));
  });
  // Generation 2's files of ranks 0 and 1 are there, but no index names them.
  ShardedReader reader(dir);
  CHECK(reader.index().generation == 1);
  for (const auto& [name, full] : full_state(0)) CHECK(same(reader.read(name), full));
}

TEST_CASE("ranks that save different entries fail on every rank, naming the rank and the entry",
          "[checkpoint][sharded]") {
  const std::string dir = checkpoint::testing::scratch_dir("sharded_mismatch") + "/ckpt";
  auto world = std::make_shared<ThreadWorld>(2);
  run_ranks(2, [&](int rank) {
    ThreadProcessGroup group(world, rank);
    ShardedStateDict state = rank_state(rank, 2);
    if (rank == 1) state["fc.bias"].global_shape = Shape{6};
    THREAD_CHECK_THROWS_WITH(save_sharded(dir, state, group),
                             rank == 0 ? Catch::Contains("(rank 1)") && Catch::Contains("\"fc.bias\"")
                                       : Catch::Contains("rank(s) 0 failed") && Catch::Contains(dir));
  });
  CHECK_THROWS_WITH(ShardedReader(dir), Catch::Contains("no index.json"));
}

}  // namespace
}  // namespace brisk::checkpoint
