// tools/checkpoint/consolidate: a sharded checkpoint of 3 thread ranks becomes one safetensors
// file of whole tensors (the model's, plain; or the whole run in Brisk's checkpoint format),
// read back with Brisk's reader. (PyTorch reads the plain file too:
// tools/checkpoint/load_with_torch.py, run by hand, is not a test dependency.)
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "checkpoint/checkpoint.h"
#include "checkpoint/checkpoint_layout.h"
#include "checkpoint/safetensors.h"
#include "checkpoint/sharded/save_sharded.h"
#include "tests/checkpoint/sharded/sharded_test_state.h"
#include "tests/distributed/ddp/thread_process_group.h"
#include "tests/scratch_files.h"
#include "tests/tools/launch/process_runner.h"

namespace brisk::checkpoint {
namespace {

using dist::testing::run_ranks;
using dist::testing::ThreadProcessGroup;
using dist::testing::ThreadWorld;

constexpr const char* kTool = "tools/checkpoint/consolidate";

bool same(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() && native::equal(a, b);
}

// A training run's sharded checkpoint: the test tensors as the model, an optimizer entry, the
// run's scalars.
std::string saved_run(const std::string& name) {
  const std::string dir = brisk::testing::scratch_dir(name) + "/ckpt";
  Checkpoint run;
  run.optimizer_name = "Adam";
  run.optimizer.param_groups = nlohmann::json::array({{{"lr", 0.1}, {"params", {0}}}});
  run.progress = {1, 2, 30};
  run.data_seed = 5;
  const Metadata metadata = checkpoint_metadata(run, dir);
  auto world = std::make_shared<ThreadWorld>(3);
  run_ranks(3, [&](int rank) {
    ThreadProcessGroup group(world, rank);
    ShardedStateDict state = testing::rank_state(rank, 3);
    const dist::RowRange rows = dist::dim0_shard(10, 3, rank);
    state.insert("optimizer/state.0.exp_avg",
                 sharded(native::full({rows.rows, 3}, rank, TensorOptions(kFloat64)), {10, 3}, rows));
    save_sharded(dir, state, group, metadata);
  });
  return dir;
}

TEST_CASE("consolidate writes the model's whole tensors into one plain safetensors file", "[checkpoint][tools]") {
  const std::string dir = saved_run("consolidate_model");
  const std::string out = brisk::testing::scratch_dir("consolidate_model_out") + "/model.safetensors";
  brisk::testing::RunResult r = brisk::testing::run_process({kTool, dir, out});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("6 tensors") != std::string::npos);
  Safetensors file = load_safetensors(out);
  CHECK_FALSE(file.checksums_verified);  // a plain file, as any safetensors writer makes
  CHECK(file.metadata == Metadata{{"format", "pt"}});
  nn::StateDict expected = testing::full_state();
  expected.insert("counter", testing::counter());
  REQUIRE(file.tensors.size() == expected.size());
  for (const auto& [name, tensor] : expected) {
    CAPTURE(name);
    REQUIRE(file.tensors.contains(name));
    CHECK(same(file.tensors[name], tensor));
  }
}

TEST_CASE("consolidate --checkpoint writes the whole run in Brisk's checkpoint format", "[checkpoint][tools]") {
  const std::string dir = saved_run("consolidate_run");
  const std::string out = brisk::testing::scratch_dir("consolidate_run_out") + "/run.safetensors";
  brisk::testing::RunResult r = brisk::testing::run_process({kTool, dir, out, "--checkpoint"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  Checkpoint ckpt = load_checkpoint(out);
  CHECK(ckpt.optimizer_name == "Adam");
  CHECK(ckpt.progress.step == 30);
  CHECK(ckpt.data_seed == 5);
  CHECK(same(ckpt.model["fc.weight"], testing::full_state()["fc.weight"]));
  const Tensor exp_avg = ckpt.optimizer.tensors.at("state.0.exp_avg");
  CHECK(same(exp_avg.narrow(0, 4, 4), native::full({4, 3}, 1, TensorOptions(kFloat64))));
  CHECK(same(exp_avg.narrow(0, 8, 2), native::full({2, 3}, 2, TensorOptions(kFloat64))));
}

TEST_CASE("consolidate names a directory that holds no sharded checkpoint", "[checkpoint][tools]") {
  const std::string dir = brisk::testing::scratch_dir("consolidate_empty");
  brisk::testing::RunResult r = brisk::testing::run_process({kTool, dir, dir + "/out.safetensors"});
  CHECK(r.status == 1);
  CHECK(r.err.find(dir) != std::string::npos);
  CHECK(r.err.find("no index.json") != std::string::npos);
}

}  // namespace
}  // namespace brisk::checkpoint
