// Loading a sharded checkpoint that is incomplete, corrupt or of other shapes: brisk::Error
// naming the directory, the file, the entry and what differs, never a crash; and a failure on
// one rank is every rank's error.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "checkpoint/sharded/save_sharded.h"
#include "checkpoint/sharded/sharded_reader.h"
#include "tests/checkpoint/file_util.h"
#include "tests/checkpoint/sharded/sharded_test_state.h"
#include "tests/distributed/ddp/thread_process_group.h"

namespace brisk::checkpoint {
namespace {

using Catch::Contains;
using dist::testing::run_ranks;
using dist::testing::ThreadProcessGroup;
using dist::testing::ThreadWorld;
using testing::rank_state;
using testing::zero_state;

bool same(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() && native::equal(a, b);
}

// A checkpoint saved by 2 thread ranks in a fresh directory.
std::string saved(const std::string& name) {
  const std::string dir = checkpoint::testing::scratch_dir(name) + "/ckpt";
  auto world = std::make_shared<ThreadWorld>(2);
  run_ranks(2, [&](int rank) {
    ThreadProcessGroup group(world, rank);
    save_sharded(dir, rank_state(rank, 2), group);
  });
  return dir;
}

TEST_CASE("a directory without an index is no checkpoint (a save that did not finish)", "[checkpoint][sharded]") {
  const std::string dir = saved("sharded_no_index");
  std::remove((dir + "/index.json").c_str());
  ShardedStateDict state = zero_state(0, 1);
  CHECK_THROWS_WITH(load_sharded(dir, state), Contains(dir) && Contains("no index.json") && Contains("did not finish"));
}

TEST_CASE("a missing rank file is named with its rank", "[checkpoint][sharded]") {
  const std::string dir = saved("sharded_missing_file");
  std::remove((dir + "/rank-00001-of-00002.gen-1.safetensors").c_str());
  ShardedReader reader(dir);
  // Rows of rank 0 only still load; rows of rank 1 name its file.
  CHECK_NOTHROW(reader.read("fc.weight", {0, 5}));
  CHECK_THROWS_WITH(reader.read("fc.weight", {4, 2}), Contains("the file of rank 1") &&
                                                          Contains("rank-00001-of-00002.gen-1.safetensors") &&
                                                          Contains("missing"));
}

TEST_CASE("a corrupt byte in a rank file fails its checksum, naming the file and the entry", "[checkpoint][sharded]") {
  const std::string dir = saved("sharded_corrupt");
  const std::string file = dir + "/rank-00001-of-00002.gen-1.safetensors";
  std::vector<uint8_t> bytes = checkpoint::testing::read_bytes(file);
  bytes[bytes.size() - 1] ^= 0x40;  // the last tensor's data: rank 1's row of "tiny"
  checkpoint::testing::write_bytes(file, bytes);
  ShardedReader reader(dir);
  CHECK_NOTHROW(reader.read("fc.weight", {0, 5}));
  CHECK_THROWS_WITH(reader.read("tiny"), Contains(file) && Contains("tiny") && Contains("checksum"));
}

TEST_CASE("some rows of a shard are read and checked block by block: a corrupt row fails only reads of it",
          "[checkpoint][sharded]") {
  const std::string dir = saved("sharded_corrupt_row");
  // Rank 1 of 2 holds rows 5-9 of fc.weight ([10, 3] float64, 24 bytes a row), a block a row.
  const std::string file = dir + "/rank-00001-of-00002.gen-1.safetensors";
  std::vector<uint8_t> bytes = checkpoint::testing::read_bytes(file);
  uint64_t header = 0;
  for (int i = 7; i >= 0; --i) header = (header << 8) | bytes[static_cast<size_t>(i)];
  const size_t row_7 = 8 + header + SafetensorsReader(file).find("fc.weight")->begin + 2 * 24;
  bytes[row_7 + 5] ^= 0x01;
  checkpoint::testing::write_bytes(file, bytes);
  ShardedReader reader(dir);
  CHECK(same(reader.read("fc.weight", {5, 2}), native::narrow(testing::full_state()["fc.weight"], 0, 5, 2)));
  CHECK(same(reader.read("fc.weight", {8, 2}), native::narrow(testing::full_state()["fc.weight"], 0, 8, 2)));
  CHECK_THROWS_WITH(reader.read("fc.weight", {6, 3}),
                    Contains(file) && Contains("rows [2, 3) of tensor \"fc.weight\"") && Contains("checksum"));
  CHECK_THROWS_WITH(reader.read("fc.weight"), Contains(file) && Contains("fc.weight") && Contains("checksum"));
}

TEST_CASE("a rank file of another save is refused", "[checkpoint][sharded]") {
  const std::string dir = saved("sharded_other_save");
  const std::string other = saved("sharded_other_save_2");
  // Both are generation 1 of 2 ranks: swap in the other's file, whose checksums hold.
  std::rename((other + "/rank-00001-of-00002.gen-1.safetensors").c_str(),
              (dir + "/rank-00001-of-00002.gen-1.safetensors").c_str());
  ShardedReader reader(dir);
  CHECK_NOTHROW(reader.read("fc.weight"));  // the same values: the file is as good

  // An older generation's file under the current name is another save.
  auto world = std::make_shared<ThreadWorld>(2);
  run_ranks(2, [&](int rank) {
    ThreadProcessGroup group(world, rank);
    save_sharded(other, rank_state(rank, 2), group);  // generation 2
  });
  std::rename((dir + "/rank-00000-of-00002.gen-1.safetensors").c_str(),
              (other + "/rank-00000-of-00002.gen-2.safetensors").c_str());
  ShardedReader mixed(other);
  CHECK_THROWS_WITH(mixed.read("fc.weight"), Contains("rank-00000-of-00002.gen-2.safetensors") &&
                                                 Contains("generation 1") && Contains("generation 2"));
}

TEST_CASE("loading into other shapes or dtypes, or an entry the checkpoint lacks, names the entry",
          "[checkpoint][sharded]") {
  const std::string dir = saved("sharded_mismatch_load");
  ShardedStateDict state = zero_state(0, 1);
  state["fc.weight"] = sharded(native::zeros({10, 4}, TensorOptions(kFloat64)), {10, 4}, {0, 10});
  CHECK_THROWS_WITH(load_sharded(dir, state),
                    Contains(dir) && Contains("\"fc.weight\" is float64 [10, 3]") && Contains("[10, 4]"));

  state = zero_state(0, 1);
  state["fc.bias"].local = native::zeros({5}, TensorOptions(kFloat64));
  CHECK_THROWS_WITH(load_sharded(dir, state), Contains("\"fc.bias\" is float32 [5]") && Contains("float64 [5]"));

  state = zero_state(0, 1);
  state.insert("fc2.weight", replicated(native::zeros({2}, TensorOptions(kFloat64))));
  CHECK_THROWS_WITH(load_sharded(dir, state), Contains(dir) && Contains("no entry \"fc2.weight\""));

  CHECK_THROWS_WITH(ShardedReader(dir).read("fc.weight", {8, 3}), Contains("no rows [8, 11)"));
}

TEST_CASE("a load that fails on one rank fails on every rank, naming it", "[checkpoint][sharded]") {
  const std::string dir = saved("sharded_load_fail");
  auto world = std::make_shared<ThreadWorld>(3);
  run_ranks(3, [&](int rank) {
    ThreadProcessGroup group(world, rank);
    ShardedStateDict state = zero_state(rank, 3);
    if (rank == 1) state.insert("absent", replicated(native::zeros({1}, TensorOptions(kFloat64))));
    THREAD_CHECK_THROWS_WITH(load_sharded(dir, state, &group),
                             rank == 1 ? Contains("on rank 1") && Contains("no entry \"absent\"")
                                       : Contains("rank(s) 1 failed") && Contains(dir));
  });
}

TEST_CASE("a corrupt index names the index file and the entry", "[checkpoint][sharded]") {
  const std::string dir = saved("sharded_bad_index");
  const std::string index = dir + "/index.json";
  std::vector<uint8_t> bytes = checkpoint::testing::read_bytes(index);
  std::string text(bytes.begin(), bytes.end());
  const std::string from = "\"begin\":5";
  // fc.weight's second shard starting a row late leaves a gap.
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), "\"begin\":6");
  checkpoint::testing::write_bytes(index, std::vector<uint8_t>(text.begin(), text.end()));
  CHECK_THROWS_WITH(ShardedReader(dir),
                    Contains(index) && Contains("entry \"fc.weight\"") && Contains("rows before it end at 5"));
}

}  // namespace
}  // namespace brisk::checkpoint
