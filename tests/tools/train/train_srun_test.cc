// train started by Slurm on a one-node cluster the test brings up (tests/tools/slurm): `srun -n 2
// train` (ranks, store host and port from Slurm's variables) and an `sbatch` script that runs it,
// each ending bit for bit where the launcher's run ends. Skips, saying so, without Slurm.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "tests/scratch_files.h"
#include "tests/tools/slurm/single_node_slurm.h"
#include "tests/tools/train/launch_train.h"

using namespace brisk;
using namespace brisk::testing;
using Catch::Matchers::Contains;

namespace {

std::string shell_words(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& w : words) line += (line.empty() ? "" : " ") + ("'" + w + "'");
  return line;
}

}  // namespace

TEST_CASE("train under Slurm: srun -n 2 and an sbatch script end bit for bit as the launcher's run",
          "[distributed][train][slurm]") {
  if (!SingleNodeSlurm::available()) {
    WARN(SingleNodeSlurm::missing());
    return;
  }
  const std::string dir = scratch_dir("train_srun");
  RunResult launcher = launch_train(2, {"--epochs", "1", "--save", dir + "/launcher.ckpt"});
  INFO(launcher.out);
  REQUIRE(launcher.status == 0);

  SingleNodeSlurm slurm;
  std::vector<std::string> argv{"/usr/bin/srun", "-n", "2"};
  std::vector<std::string> command = train_command({"--epochs", "1", "--save", dir + "/srun.ckpt"});
  argv.insert(argv.end(), command.begin(), command.end());
  RunResult srun = run_process(argv, slurm.run_options());
  INFO(output_of(srun) << "\n" << slurm.logs());
  REQUIRE(srun.status == 0);
  CHECK_THAT(srun.out + srun.err, Contains("distributed: 2 processes over gloo, 16 examples per process"));
  require_same_training_state(dir + "/srun.ckpt", dir + "/launcher.ckpt");
  CHECK(read_bytes(dir + "/srun.ckpt") == read_bytes(dir + "/launcher.ckpt"));

  // A batch script as docs/cluster.md shows, submitted and waited for.
  const std::string script = dir + "/job.sh";
  std::ofstream(script) << "#!/bin/bash\n#SBATCH --ntasks=2\nsrun "
                        << shell_words(train_command({"--epochs", "1", "--save", dir + "/sbatch.ckpt"})) << "\n";
  RunResult sbatch = run_process({"/usr/bin/sbatch", "--wait", "--chdir", std::filesystem::current_path().string(),
                                  "--output", dir + "/sbatch.out", script},
                                 slurm.run_options());
  const std::vector<uint8_t> job_output = read_bytes(dir + "/sbatch.out");
  INFO(output_of(sbatch) << "\n" << std::string(job_output.begin(), job_output.end()));
  REQUIRE(sbatch.status == 0);
  require_same_training_state(dir + "/sbatch.ckpt", dir + "/launcher.ckpt");
  CHECK(read_bytes(dir + "/sbatch.ckpt") == read_bytes(dir + "/launcher.ckpt"));
}
