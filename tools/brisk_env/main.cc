// brisk-env: what this process's starter told it, as init_distributed will read it: each
// field, its value, the variable it came from; the starter; and what would be refused.
//
//   srun -N 2 --ntasks-per-node 4 brisk-env    # each task prints its own view
//
// Exits 1 when init_distributed would refuse the environment, 0 otherwise.
#include <cstdio>

#include "distributed/job_environment.h"

int main() {
  const brisk::dist::JobEnvironment job = brisk::dist::read_job_environment();
  std::fputs(brisk::dist::describe(job).c_str(), stdout);
  return job.refusals.empty() ? 0 : 1;
}
