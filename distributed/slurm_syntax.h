#pragma once
// Slurm's compressed lists, as srun and sbatch write them into the environment (docs/cluster.md):
//
//   expand_hostlist("node[01-03,07],gpu5")  // {"node01", "node02", "node03", "node07", "gpu5"}
//   expand_tasks_per_node("2(x3),1")        // {2, 2, 2, 1}: one count per node, in node order
#include <string>
#include <vector>

#include "brisk/requires_cxx17.h"

namespace brisk::dist {

// The hosts of a hostlist (SLURM_JOB_NODELIST, SLURM_STEP_NODELIST): comma-separated names,
// each with any number of bracketed ranges ("a-b", zero-padded to the width of "a") and single
// numbers, expanded in order. Raises brisk::Error naming `variable` and the text when it is
// not such a list.
std::vector<std::string> expand_hostlist(const std::string& text, const std::string& variable);

// The task count of each node of SLURM_TASKS_PER_NODE or SLURM_STEP_TASKS_PER_NODE: counts
// separated by commas, "n(xk)" standing for k nodes of n tasks. Raises brisk::Error naming
// `variable` and the text when it is not such a list.
std::vector<int> expand_tasks_per_node(const std::string& text, const std::string& variable);

}  // namespace brisk::dist
