// The proof of exact recovery: a training job under `launch --max-restarts 2` whose
// rank, drawn at random, is killed at a random step (between steps, in a backward, in the
// middle of a checkpoint write: BRISK_TRAIN_FAULT, tests/tools/train/fault_injection.h) is restarted
// by the launcher, resumes with `--resume auto` from the newest complete checkpoint, and ends
// with a final checkpoint equal, byte for byte, to the uninterrupted run's; on 2 and 3 ranks,
// and on two nodes (two launchers on this machine, one rank each).
#include <catch2/catch.hpp>

#include <future>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "checkpoint/save_pattern.h"
#include "distributed/launch/free_port.h"
#include "tests/scratch_files.h"
#include "tests/tools/train/csv_lines.h"
#include "tests/tools/train/launch_train.h"
#include "tests/tools/train/run_train.h"

using namespace brisk;
using namespace brisk::testing;

namespace {

// 256 examples in global batches of 48 (16 or 24 a rank): 6 steps an epoch, 18 in all, with a
// checkpoint every 4 steps and after every epoch (steps 4, 6, 8, 12, 16, 18), the last 2 kept.
constexpr int kEpochs = 3;
constexpr int kStepsPerEpoch = 6;
constexpr int kSteps = kEpochs * kStepsPerEpoch;
constexpr int kCheckpointEvery = 4;

std::vector<std::string> train_args(const std::string& save, const std::string& csv) {
  return {"--epochs",           std::to_string(kEpochs),          "--batch-size",       "48", "--save",        save,
          "--checkpoint-every", std::to_string(kCheckpointEvery), "--keep-checkpoints", "2",  "--metrics-csv", csv};
}

// The steps after which the run checkpoints, and 0 (a fresh start).
std::set<int> checkpoint_steps() {
  std::set<int> steps{0};
  for (int step = 1; step <= kSteps; ++step) {
    if (step % kCheckpointEvery == 0 || step % kStepsPerEpoch == 0) steps.insert(step);
  }
  return steps;
}

// The final checkpoint of the uninterrupted run on `nproc` ranks, computed once per size.
std::string reference_checkpoint(int nproc) {
  static std::map<int, std::string> computed;
  if (computed.count(nproc)) return computed[nproc];
  std::string dir = scratch_dir("restart_reference_" + std::to_string(nproc));
  RunResult r =
      launch_train(nproc, train_args(dir + "/ckpt-{step}.safetensors", dir + "/metrics.csv"), {}, {}, kTrainWithFaults);
  INFO(output_of(r));
  REQUIRE(r.status == 0);
  std::optional<std::string> last = checkpoint::newest_checkpoint(dir + "/ckpt-{step}.safetensors");
  REQUIRE(last);
  REQUIRE(checkpoint::load_checkpoint(*last).progress.step == kSteps);
  return computed[nproc] = *last;
}

// The newest checkpoint of `pattern` is the run's last, equal to `reference` byte for byte.
void require_final_checkpoint(const std::string& pattern, const std::string& reference) {
  std::optional<std::string> last = checkpoint::newest_checkpoint(pattern);
  REQUIRE(last);
  checkpoint::Checkpoint got = checkpoint::load_checkpoint(*last);
  checkpoint::Checkpoint want = checkpoint::load_checkpoint(reference);
  REQUIRE(got.progress.step == kSteps);
  require_same_state(got, want);
  CHECK(read_bytes(*last) == read_bytes(reference));
}

int draw(std::mt19937& random, int low, int high) { return std::uniform_int_distribution<int>(low, high)(random); }

}  // namespace

TEST_CASE("train under launch --max-restarts: a rank killed at a random point, the job ends bitwise as if not",
          "[distributed][train][restart]") {
  const int nproc = GENERATE(2, 3);
  const std::string point = GENERATE(as<std::string>(), "step", "backward", "checkpoint");
  const std::string reference = reference_checkpoint(nproc);

  std::random_device seed;
  std::mt19937 random(seed());
  // at=checkpoint: rank 0 (the writer) dies in the first checkpoint written at or after the
  // step; the others any rank at any step but the last.
  const int rank = point == "checkpoint" ? 0 : draw(random, 0, nproc - 1);
  const int step = draw(random, 1, kSteps - 1);
  const std::string fault = "rank=" + std::to_string(rank) + ",step=" + std::to_string(step) + ",at=" + point;
  INFO("BRISK_TRAIN_FAULT=" << fault << " on " << nproc << " ranks");

  std::string dir = scratch_dir("restart_" + std::to_string(nproc) + "_" + point);
  const std::string pattern = dir + "/ckpt-{step}.safetensors";
  std::vector<std::string> args = train_args(pattern, dir + "/metrics.csv");
  args.insert(args.end(), {"--resume", "auto"});
  RunOptions options;
  options.env = {{"BRISK_TRAIN_FAULT", fault}};
  options.timeout = std::chrono::seconds(240);
  RunResult r = launch_train(nproc, args, {"--max-restarts", "2", "--grace-period", "2"}, options, kTrainWithFaults);
  INFO(output_of(r));
  REQUIRE(r.status == 0);
  CHECK(count(r.out, "[rank " + std::to_string(rank) + "] fault injection: rank " + std::to_string(rank) + " dies") >=
        1);
  CHECK(count(r.out, "launch: restart 1 of 2 (round 1) after rank " + std::to_string(rank) + " (local rank ") == 1);
  CHECK(count(r.out, point == "checkpoint" ? "was killed by signal SIGXFSZ" : "was killed by signal SIGKILL") >= 1);
  CHECK(count(r.out, "restart 2 of 2") == 0);
  // The restarted round resumed from the newest checkpoint complete at the fault (or started
  // afresh, as round 0 did, when there was none): the last one before the fault, or, when that
  // one was being written as the job was stopped, the one before it.
  const std::set<int> steps = checkpoint_steps();
  int fault_step = step;  // the last checkpoint step that may be complete
  if (point == "checkpoint") fault_step = *steps.lower_bound(step) - 1;
  const int newest = *std::prev(steps.upper_bound(fault_step));
  const int before = newest == 0 ? 0 : *std::prev(steps.find(newest));
  const int afresh = count(r.out, "--resume auto: no checkpoint of " + pattern + " yet; starting afresh");
  int resumed = afresh == 2 ? 0 : -1;
  for (int s : {before, newest}) {
    if (s > 0 && count(r.out, "resumed from " + checkpoint::checkpoint_path(pattern, {0, 0, s}) + ": ") == 1) {
      resumed = s;
    }
  }
  INFO("resumed at step " << resumed << ", expected " << before << " or " << newest);
  CHECK((resumed == newest || resumed == before));
  CHECK(afresh == (resumed == 0 ? 2 : 1));
  if (point == "checkpoint") {
    // The write killed part-way left its temporary file, which the restarted run removed.
    CHECK(count(r.out, "a temporary file that a killed checkpoint write left behind") >= 1);
  }

  require_final_checkpoint(pattern, reference);
  // One row per epoch: those of epochs trained again replaced, not repeated.
  std::vector<std::string> rows = lines(dir + "/metrics.csv");
  REQUIRE(rows.size() == kEpochs + 1);
  for (int epoch = 1; epoch <= kEpochs; ++epoch) CHECK(split(rows[epoch])[0] == std::to_string(epoch));
}

TEST_CASE("train under launch --max-restarts on two nodes: node 1's rank killed, both nodes restart, bitwise",
          "[distributed][train][restart]") {
  const std::string reference = reference_checkpoint(2);
  std::random_device seed;
  std::mt19937 random(seed());
  const std::string fault = "rank=1,step=" + std::to_string(draw(random, 1, kSteps - 1)) +
                            (draw(random, 0, 1) == 0 ? ",at=step" : ",at=backward");
  INFO("BRISK_TRAIN_FAULT=" << fault << " on 2 nodes of 1 rank");

  std::string dir = scratch_dir("restart_two_nodes");
  const std::string pattern = dir + "/ckpt-{step}.safetensors";
  std::vector<std::string> args = train_args(pattern, dir + "/metrics.csv");
  args.insert(args.end(), {"--resume", "auto"});
  const std::string master_port = std::to_string(launch::free_port("127.0.0.1"));
  const std::string control_port = std::to_string(launch::free_port("127.0.0.1"));
  RunOptions options;
  options.env = {{"BRISK_TRAIN_FAULT", fault}, {"BRISK_STORE_TOKEN", "5eed"}};
  options.timeout = std::chrono::seconds(240);
  std::vector<std::future<RunResult>> nodes;
  for (int node = 0; node < 2; ++node) {
    std::vector<std::string> argv{launcher_path(),
                                  "--nnodes",
                                  "2",
                                  "--node-rank",
                                  std::to_string(node),
                                  "--master-port",
                                  master_port,
                                  "--control-port",
                                  control_port,
                                  "--max-restarts",
                                  "2",
                                  "--grace-period",
                                  "2"};
    std::vector<std::string> command = train_command(args, kTrainWithFaults);
    argv.insert(argv.end(), command.begin(), command.end());
    nodes.push_back(std::async(std::launch::async, [argv, options] { return run_process(argv, options); }));
  }
  std::vector<RunResult> results;
  for (auto& node : nodes) results.push_back(node.get());
  for (int node = 0; node < 2; ++node) {
    INFO("node " << node << "\n" << output_of(results[node]));
    REQUIRE(results[node].status == 0);
    CHECK(count(results[node].err, "launch: restart 1 of 2 (round 1) after node 1: rank 1 (local rank 0, pid ") == 1);
    CHECK(count(results[node].err, "restart 2 of 2") == 0);
  }
  require_final_checkpoint(pattern, reference);
}
