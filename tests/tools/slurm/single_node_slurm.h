#pragma once
// SingleNodeSlurm: a Slurm cluster of one node on loopback for the tests that run jobs with
// srun and sbatch (Debian's slurmctld, slurmd and munge). The constructor writes a munge key
// and a minimal slurm.conf into a fresh directory under /tmp (ports chosen free), starts
// munged, slurmctld and slurmd in the foreground as children of the test (they die with it,
// PR_SET_PDEATHSIG), and waits until the node is idle; the destructor stops them and removes
// the directory, so nothing is left running.
//
//   if (!SingleNodeSlurm::available()) { WARN(SingleNodeSlurm::missing()); return; }
//   SingleNodeSlurm slurm(4);   // a node with 4 CPUs
//   RunResult r = run_process({"/usr/bin/srun", "-n", "2", ...}, slurm.run_options());
#include <string>
#include <sys/types.h>
#include <vector>

#include "tests/tools/launch/process_runner.h"

namespace brisk::testing {

class SingleNodeSlurm {
 public:
  // Whether munged, slurmctld, slurmd, srun and sbatch are installed; missing() says which are not.
  static bool available();
  static std::string missing();

  // Fails the test (REQUIRE) when the cluster does not come up within 30 s, with the daemons' logs.
  explicit SingleNodeSlurm(int cpus = 4);
  ~SingleNodeSlurm();
  SingleNodeSlurm(const SingleNodeSlurm&) = delete;
  SingleNodeSlurm& operator=(const SingleNodeSlurm&) = delete;

  // The directory of the cluster's files (slurm.conf, logs); jobs may write there.
  const std::string& dir() const { return dir_; }
  // Options for run_process that point Slurm's commands at this cluster (SLURM_CONF).
  RunOptions run_options(std::chrono::seconds timeout = std::chrono::seconds(120)) const;
  // The daemons' logs, for a failing test to show.
  std::string logs() const;

 private:
  // Writes the key and slurm.conf, starts the daemons, waits for the node to be idle.
  void start(int cpus);
  // Stops the daemons that started and removes dir_.
  void stop();
  pid_t spawn(const std::vector<std::string>& argv, const std::string& log);

  std::string dir_;
  std::vector<pid_t> daemons_;
};

}  // namespace brisk::testing
