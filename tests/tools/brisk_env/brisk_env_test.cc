// brisk-env run as a user runs it in a cluster script: what it prints and its exit status.
#include <catch2/catch.hpp>

#include "tests/tools/launch/process_runner.h"

using namespace brisk::testing;
using Catch::Contains;

namespace {

const char* kBriskEnv = "tools/brisk_env/brisk-env";

RunResult brisk_env(std::vector<std::pair<std::string, std::string>> env) {
  RunOptions options;
  options.timeout = std::chrono::seconds(30);
  options.env = std::move(env);
  return run_process({kBriskEnv}, options);
}

}  // namespace

TEST_CASE("brisk-env: a Slurm task's fields, values and variables; exit status 0") {
  RunResult r = brisk_env({{"SLURM_PROCID", "3"},
                           {"SLURM_STEP_NUM_TASKS", "4"},
                           {"SLURM_LOCALID", "1"},
                           {"SLURM_STEP_TASKS_PER_NODE", "2(x2)"},
                           {"SLURM_STEP_NODELIST", "node[07-08]"},
                           {"SLURM_JOB_ID", "20001"}});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("starter           slurm\n"));
  CHECK_THAT(r.out, Contains("rank              3          from SLURM_PROCID=3\n"));
  CHECK_THAT(r.out, Contains("world_size        4          from SLURM_STEP_NUM_TASKS=4\n"));
  CHECK_THAT(r.out, Contains("local_rank        1          from SLURM_LOCALID=1\n"));
  CHECK_THAT(r.out, Contains("local_world_size  2          from SLURM_STEP_TASKS_PER_NODE=2(x2)\n"));
  CHECK_THAT(r.out, Contains("master_addr       node07     from SLURM_STEP_NODELIST=node[07-08], its first host\n"));
  CHECK_THAT(r.out, Contains("master_port       15001      from SLURM_JOB_ID=20001, 15000 + the job id mod 10000\n"));
}

TEST_CASE("brisk-env: a refused environment says why, with exit status 1") {
  RunResult r = brisk_env({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"SLURM_PROCID", "1"}, {"SLURM_STEP_NUM_TASKS", "2"}});
  INFO(r.out << r.err);
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Contains("starter           torchrun\n"));
  CHECK_THAT(r.out, Contains("refused           RANK=0 and SLURM_PROCID=1 disagree on the rank"));
}
