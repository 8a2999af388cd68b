// The proof of preemption: a training job whose cluster sends SIGTERM or SIGUSR1 at a
// random step stops, on every rank at one agreed step, saves that step's checkpoint, exits
// with status 75 (requeue); started again with --resume auto it ends with a final checkpoint
// equal, byte for byte, to the uninterrupted run's. The signal reaches the job as clusters send
// it: to the starter, which passes it on (the launcher: SIGTERM, as Kubernetes and scancel;
// mpirun: SIGUSR1, Slurm's --signal warning; srun: scancel --signal=TERM to the job, on a
// one-node Slurm the test starts), or to one rank alone (train/preemption.h's agreement
// through the store). BRISK_TRAIN_FAULT's preempt points deliver it
// (tests/tools/train/fault_injection.h).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "checkpoint/save_pattern.h"
#include "tests/scratch_files.h"
#include "tests/tools/slurm/single_node_slurm.h"
#include "tests/tools/train/launch_train.h"
#include "tests/tools/train/run_train.h"

using namespace brisk;
using namespace brisk::testing;

namespace {

// 256 examples in global batches of 48: 6 steps an epoch, 18 in all; a checkpoint every epoch.
constexpr int kEpochs = 3;
constexpr int kSteps = 18;
constexpr int kRequeue = 75;

std::vector<std::string> train_args(const std::string& save) {
  return {"--epochs", std::to_string(kEpochs), "--batch-size", "48", "--save", save, "--resume", "auto"};
}

const std::string& reference_checkpoint() {
  static const std::string path = [] {
    std::string dir = scratch_dir("preemption_reference");
    RunResult r = launch_train(2, train_args(dir + "/ckpt-{step}.safetensors"), {}, {}, kTrainWithFaults);
    INFO(output_of(r));
    REQUIRE(r.status == 0);
    std::optional<std::string> last = checkpoint::newest_checkpoint(dir + "/ckpt-{step}.safetensors");
    REQUIRE(last);
    return *last;
  }();
  return path;
}

RunResult run_job(const std::string& starter, const std::vector<std::string>& args, const std::string& fault,
                  const SingleNodeSlurm* slurm) {
  RunOptions options = slurm != nullptr ? slurm->run_options(std::chrono::seconds(180)) : RunOptions{};
  options.timeout = std::chrono::seconds(180);
  if (!fault.empty()) options.env.push_back({"BRISK_TRAIN_FAULT", fault});
  if (starter == "mpirun")
    for (const auto& entry : mpirun_env()) options.env.push_back(entry);
  if (starter == "launcher") {
    return launch_train(2, args, {"--grace-period", "30"}, options, kTrainWithFaults);
  }
  std::vector<std::string> argv{"/usr/bin/mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2"};
  if (starter == "srun") argv = {"/usr/bin/srun", "-n", "2"};
  if (!fault.empty() && starter == "mpirun") argv.insert(argv.end(), {"-x", "BRISK_TRAIN_FAULT"});
  std::vector<std::string> command = train_command(args, kTrainWithFaults);
  argv.insert(argv.end(), command.begin(), command.end());
  RunResult r = run_process(argv, options);
  r.out += r.err;
  return r;
}

}  // namespace

TEST_CASE("train preempted at a random step: every rank stops at one step, saves, exits 75, resumes bitwise",
          "[distributed][train][preemption]") {
  // starter, where the signal goes, which signal
  const auto [starter, at, signal] = GENERATE(table<std::string, std::string, std::string>({
      {"launcher", "preempt_starter", "TERM"},
      {"launcher", "preempt_self", "USR1"},
      {"mpirun", "preempt_starter", "USR1"},
      {"srun", "preempt_job", "TERM"},
  }));
  if (starter == "mpirun" && ::access("/usr/bin/mpirun", X_OK) != 0) {
    WARN("SKIPPED: /usr/bin/mpirun is not installed (tools/setup.sh installs openmpi-bin)");
    return;
  }
  if (starter == "srun" && !SingleNodeSlurm::available()) {
    WARN(SingleNodeSlurm::missing());
    return;
  }
  std::unique_ptr<SingleNodeSlurm> slurm;
  if (starter == "srun") slurm = std::make_unique<SingleNodeSlurm>();
  const std::string reference = reference_checkpoint();
  std::random_device seed;
  std::mt19937 random(seed());
  const int rank = std::uniform_int_distribution<int>(0, 1)(random);
  const int step = std::uniform_int_distribution<int>(1, kSteps - 2)(random);
  const std::string fault =
      "rank=" + std::to_string(rank) + ",step=" + std::to_string(step) + ",at=" + at + ",signal=" + signal;
  INFO("BRISK_TRAIN_FAULT=" << fault << " under " << starter);

  std::string dir = scratch_dir("preemption_" + starter + "_" + at);
  const std::string pattern = dir + "/ckpt-{step}.safetensors";
  RunResult first = run_job(starter, train_args(pattern), fault, slurm.get());
  INFO(output_of(first));
  REQUIRE_FALSE(first.timed_out);
  CHECK(first.status == kRequeue);
  // Rank 0 says where the job stopped: the step after the signal's (the first rank to see it
  // proposes the next step, which no rank has finished yet; the injector waits for a signal it
  // sent through the starter to come back before its rank's step ends).
  const int stopped = step + 1;
  CHECK(count(first.out, "preempted by SIG" + signal + ": stopped after step " + std::to_string(stopped)) >= 1);
  std::optional<std::string> saved = checkpoint::newest_checkpoint(pattern);
  REQUIRE(saved);
  CHECK(checkpoint::load_checkpoint(*saved).progress.step == stopped);

  RunResult second = run_job(starter, train_args(pattern), "", slurm.get());
  INFO(output_of(second));
  REQUIRE(second.status == 0);
  CHECK(count(second.out, "resumed from " + checkpoint::checkpoint_path(pattern, {0, 0, stopped}) + ": ") >= 1);
  std::optional<std::string> last = checkpoint::newest_checkpoint(pattern);
  REQUIRE(last);
  checkpoint::Checkpoint got = checkpoint::load_checkpoint(*last);
  checkpoint::Checkpoint want = checkpoint::load_checkpoint(reference);
  REQUIRE(got.progress.step == kSteps);
  require_same_state(got, want);
  CHECK(read_bytes(*last) == read_bytes(reference));
}

TEST_CASE("train preempted in one process: stops after that step, saves it, exits 75, resumes", "[train][preemption]") {
  std::string dir = scratch_dir("preemption_one_process");
  const std::string pattern = dir + "/ckpt-{step}.safetensors";
  RunOptions options;
  options.env = {{"BRISK_TRAIN_FAULT", "rank=0,step=3,at=preempt_self"}};
  RunResult first = launch_train(1, train_args(pattern), {}, options, kTrainWithFaults);
  INFO(output_of(first));
  CHECK(first.status == kRequeue);
  CHECK(count(first.out, "preempted by SIGTERM: stopped after step 3 (epoch 1, batch 3), its checkpoint saved") == 1);
  std::optional<std::string> saved = checkpoint::newest_checkpoint(pattern);
  REQUIRE(saved);
  CHECK(checkpoint::load_checkpoint(*saved).progress.step == 3);
  RunResult second = launch_train(1, train_args(pattern), {}, {}, kTrainWithFaults);
  INFO(output_of(second));
  REQUIRE(second.status == 0);
  std::optional<std::string> last = checkpoint::newest_checkpoint(pattern);
  REQUIRE(last);
  CHECK(checkpoint::load_checkpoint(*last).progress.step == kSteps);
}
