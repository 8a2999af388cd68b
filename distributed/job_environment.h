#pragma once
// Where this process stands in its job (rank, world size, local rank, the store's address),
// read from the environment its starter left: torchrun's variables (Brisk's launch, torchrun,
// Kubernetes operators), Slurm's, Open MPI's, MPICH/Hydra's, PMIx's. The one reader of those
// variables; its table, in the order it is read, and its checks are docs/cluster.md's.
//
//   dist::JobEnvironment job = dist::resolve_job_environment();  // raises on a contradiction
//   if (job.world_size.value > 1) ... job.rank.value, job.master_addr.value ...
//
// `brisk-env` (tools/brisk_env) prints describe(read_job_environment()).
#include <string>
#include <vector>

#include "brisk/requires_cxx17.h"

namespace brisk::dist {

// One field of the job and where it came from.
template <typename T>
struct JobField {
  T value{};
  std::string variable;  // the variable it was read from; "" when no variable gave it
  std::string reading;   // how: "SLURM_PROCID=3", "SLURM_STEP_NODELIST=node[01-02], its first host"
  bool known() const { return !variable.empty(); }
};

struct JobEnvironment {
  // The starter whose variables describe this process: "torchrun", "slurm", "openmpi",
  // "mpich/pmi", "pmix", or "none" (a process started on its own).
  std::string starter = "none";
  JobField<int> rank{-1, "", ""};              // value -1 when not known
  JobField<int> world_size{-1, "", ""};        // value -1 when not known
  JobField<int> local_rank{-1, "", ""};        // value -1 when not known
  JobField<int> local_world_size{-1, "", ""};  // value -1 when not known
  JobField<std::string> master_addr;
  JobField<int> master_port{-1, "", ""};  // value -1 when not known
  // Starters whose variables are set but describe a process above this one (srun's task that
  // runs torchrun, the allocation mpirun runs in), each with the reason.
  std::vector<std::string> ignored;
  // What the environment contradicts or gets wrong, each naming the variables and their values.
  std::vector<std::string> refusals;
};

// The job as the environment gives it; never raises: what is wrong goes to `refusals`.
JobEnvironment read_job_environment();

// read_job_environment(), raising brisk::Error naming `caller` and every refusal when there is one.
JobEnvironment resolve_job_environment(const std::string& caller);

// What to do when the job gives no store host (MASTER_ADDR) for its starter.
std::string store_host_hint(const JobEnvironment& job);

// A report of every field, its value and its reading, the starter, the ignored starters and
// the refusals, one per line (brisk-env's output).
std::string describe(const JobEnvironment& job);

}  // namespace brisk::dist
