#include "distributed/job_environment.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <numeric>

#include "distributed/slurm_syntax.h"
#include "tensor/error.h"

namespace brisk::dist {
namespace {

enum class Field { kRank, kWorldSize, kLocalRank, kLocalWorldSize, kMasterAddr, kMasterPort };

enum class Reading {
  kCount,          // a non-negative integer
  kTasksPerNode,   // Slurm's compressed list: the count of this node (SLURM_NODEID)
  kHost,           // a host name or address
  kFirstHost,      // Slurm's compressed hostlist: its first host
  kPortFromJobId,  // Slurm's job id: the port kSlurmPortBase + id mod kSlurmPortSpan
};

struct Row {
  const char* starter;  // nullptr: read for every starter
  Field field;
  const char* variable;
  Reading reading;
};

// docs/cluster.md's table, read top to bottom: a starter is present when its rank or
// world-size variable is set, and describes this process unless it started a process above
// this one (outer_starters); among those, the first set variable of a field wins, the starter
// that gives the rank first.
constexpr Row kTable[] = {
    {nullptr, Field::kMasterAddr, "MASTER_ADDR", Reading::kHost},
    {nullptr, Field::kMasterPort, "MASTER_PORT", Reading::kCount},
    {"torchrun", Field::kRank, "RANK", Reading::kCount},
    {"torchrun", Field::kWorldSize, "WORLD_SIZE", Reading::kCount},
    {"torchrun", Field::kLocalRank, "LOCAL_RANK", Reading::kCount},
    {"torchrun", Field::kLocalWorldSize, "LOCAL_WORLD_SIZE", Reading::kCount},
    {"slurm", Field::kRank, "SLURM_PROCID", Reading::kCount},
    {"slurm", Field::kWorldSize, "SLURM_STEP_NUM_TASKS", Reading::kCount},
    {"slurm", Field::kWorldSize, "SLURM_NTASKS", Reading::kCount},
    {"slurm", Field::kLocalRank, "SLURM_LOCALID", Reading::kCount},
    {"slurm", Field::kLocalWorldSize, "SLURM_STEP_TASKS_PER_NODE", Reading::kTasksPerNode},
    {"slurm", Field::kLocalWorldSize, "SLURM_TASKS_PER_NODE", Reading::kTasksPerNode},
    {"slurm", Field::kMasterAddr, "SLURM_STEP_NODELIST", Reading::kFirstHost},
    {"slurm", Field::kMasterAddr, "SLURM_JOB_NODELIST", Reading::kFirstHost},
    {"slurm", Field::kMasterPort, "SLURM_JOB_ID", Reading::kPortFromJobId},
    {"openmpi", Field::kRank, "OMPI_COMM_WORLD_RANK", Reading::kCount},
    {"openmpi", Field::kWorldSize, "OMPI_COMM_WORLD_SIZE", Reading::kCount},
    {"openmpi", Field::kLocalRank, "OMPI_COMM_WORLD_LOCAL_RANK", Reading::kCount},
    {"openmpi", Field::kLocalWorldSize, "OMPI_COMM_WORLD_LOCAL_SIZE", Reading::kCount},
    {"mpich/pmi", Field::kRank, "PMI_RANK", Reading::kCount},
    {"mpich/pmi", Field::kWorldSize, "PMI_SIZE", Reading::kCount},
    {"mpich/pmi", Field::kLocalRank, "MPI_LOCALRANKID", Reading::kCount},
    {"mpich/pmi", Field::kLocalWorldSize, "MPI_LOCALNRANKS", Reading::kCount},
    {"pmix", Field::kRank, "PMIX_RANK", Reading::kCount},
};

constexpr const char* kStarters[] = {"torchrun", "slurm", "openmpi", "mpich/pmi", "pmix"};

// Lightning's choice: ports 15000-24999, below Linux's ephemeral range (32768 and up).
constexpr int kSlurmPortBase = 15000;
constexpr int kSlurmPortSpan = 10000;

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

bool is_count(const std::string& text) {
  return !text.empty() && text.size() <= 9 && text.find_first_not_of("0123456789") == std::string::npos;
}

// The fields one starter's variables give.
struct StarterFields {
  std::map<Field, JobField<int>> counts;
  JobField<std::string> master_addr;
  // Slurm's tasks of every node (the local world size's list) and its variable, for the check
  // that they add up to the world size.
  std::vector<int> tasks_per_node;
  std::string tasks_variable;
};

void read_row(const Row& row, const std::string& text, StarterFields& fields, std::vector<std::string>& refusals) {
  const std::string reading = fmt::format("{}={}", row.variable, text);
  try {
    switch (row.reading) {
      case Reading::kCount:
        BRISK_CHECK(is_count(text), "{} is not a non-negative integer", reading);
        fields.counts[row.field] = {std::stoi(text), row.variable, reading};
        return;
      case Reading::kTasksPerNode: {
        std::vector<int> counts = expand_tasks_per_node(text, row.variable);
        const std::string node_id = env("SLURM_NODEID");
        const bool uniform = std::adjacent_find(counts.begin(), counts.end(), std::not_equal_to<int>()) == counts.end();
        fields.tasks_per_node = counts;
        fields.tasks_variable = row.variable;
        if (uniform) {
          fields.counts[row.field] = {counts[0], row.variable, reading};
        } else if (is_count(node_id)) {
          const size_t node = static_cast<size_t>(std::stoi(node_id));
          BRISK_CHECK(node < counts.size(), "SLURM_NODEID={} is beyond the {} nodes of {}", node_id, counts.size(),
                      reading);
          fields.counts[row.field] = {counts[node], row.variable,
                                      fmt::format("{}, node SLURM_NODEID={}'s count", reading, node_id)};
        }
        return;
      }
      case Reading::kHost: fields.master_addr = {text, row.variable, reading}; return;
      case Reading::kFirstHost:
        fields.master_addr = {expand_hostlist(text, row.variable).front(), row.variable,
                              fmt::format("{}, its first host", reading)};
        return;
      case Reading::kPortFromJobId:
        BRISK_CHECK(is_count(text), "{} is not a job id", reading);
        fields.counts[row.field] = {kSlurmPortBase + std::stoi(text) % kSlurmPortSpan, row.variable,
                                    fmt::format("{}, {} + the job id mod {}", reading, kSlurmPortBase, kSlurmPortSpan)};
        return;
    }
  } catch (const Error& error) {
    refusals.push_back(error.what());
  }
}

// The fields of `starter` (nullptr: the variables read for every starter), the first set
// variable of each field.
StarterFields read_starter(const char* starter, std::vector<std::string>& refusals) {
  StarterFields fields;
  for (const Row& row : kTable) {
    const bool mine =
        starter == nullptr ? row.starter == nullptr : row.starter != nullptr && std::string(row.starter) == starter;
    if (!mine) continue;
    const bool taken = row.field == Field::kMasterAddr ? fields.master_addr.known() : fields.counts.count(row.field);
    const std::string text = env(row.variable);
    if (!taken && !text.empty()) read_row(row, text, fields, refusals);
  }
  return fields;
}

// A starter is there when one of its rank or world-size variables is set.
bool present(const char* starter) {
  for (const Row& row : kTable) {
    if (row.starter != nullptr && std::string(row.starter) == starter &&
        (row.field == Field::kRank || row.field == Field::kWorldSize) && !env(row.variable).empty()) {
      return true;
    }
  }
  return false;
}

// Starters whose variables describe the process that started this one's starter, not this
// process: under a launcher's worker (torchrun's variables with GROUP_RANK, which torchrun and
// Brisk's launch set for the processes they start) every other one (srun's task that runs the
// launcher); beside Open MPI's (set by mpirun alone, never by srun) Slurm's (the allocation,
// or the srun step of mpirun's daemons).
std::map<std::string, std::string> outer_starters() {
  std::map<std::string, std::string> outer;
  if (present("torchrun") && !env("GROUP_RANK").empty()) {
    for (const char* starter : kStarters) {
      if (std::string(starter) != "torchrun" && present(starter)) {
        outer[starter] = fmt::format("{}: its variables describe the process that ran the launcher of this worker "
                                     "(GROUP_RANK={})",
                                     starter, env("GROUP_RANK"));
      }
    }
  } else if (present("openmpi") && present("slurm")) {
    outer["slurm"] = "slurm: its variables describe the allocation mpirun runs in (OMPI_COMM_WORLD_RANK is set)";
  } else if (present("slurm") && env("SLURM_STEP_NUM_TASKS").empty()) {
    for (const char* starter : kStarters) {
      if (std::string(starter) != "slurm" && present(starter)) {
        outer["slurm"] = "slurm: its variables describe the allocation (the batch script, salloc's shell): no "
                         "SLURM_STEP_NUM_TASKS says srun started this process";
      }
    }
  }
  return outer;
}

const char* field_name(Field field) {
  switch (field) {
    case Field::kRank: return "rank";
    case Field::kWorldSize: return "world size";
    case Field::kLocalRank: return "local rank";
    case Field::kLocalWorldSize: return "local world size";
    default: return "store";
  }
}

// The short name of a host ("login1" of "login1.cluster.org").
std::string short_name(const std::string& host) { return host.substr(0, host.find('.')); }

void check_ranges(JobEnvironment& job) {
  if (job.rank.known() && !job.world_size.known()) {
    job.refusals.push_back(fmt::format("the rank {} is set but no variable of {} gives the world size: set WORLD_SIZE",
                                       job.rank.reading, job.starter));
  }
  if (job.world_size.known() && job.world_size.value == 0) {
    job.refusals.push_back(fmt::format("the world size {} is not at least 1", job.world_size.reading));
  } else if (job.rank.known() && job.world_size.known() && job.rank.value >= job.world_size.value) {
    job.refusals.push_back(fmt::format("the rank {} is not below the world size {}: there are not that many tasks",
                                       job.rank.reading, job.world_size.reading));
  }
  if (job.local_rank.known() && job.local_world_size.known() && job.local_rank.value >= job.local_world_size.value) {
    job.refusals.push_back(fmt::format("the local rank {} is not below the local world size {}", job.local_rank.reading,
                                       job.local_world_size.reading));
  }
  if (job.local_world_size.known() && job.world_size.known() && job.local_world_size.value > job.world_size.value) {
    job.refusals.push_back(fmt::format("the local world size {} is larger than the world size {}",
                                       job.local_world_size.reading, job.world_size.reading));
  }
}

// A process of the allocation itself (the batch script, salloc's shell: srun sets
// SLURM_STEP_NUM_TASKS for its tasks) is one process, whatever SLURM_NTASKS says.
void check_slurm_step(JobEnvironment& job) {
  if (job.world_size.variable == "SLURM_NTASKS" && job.world_size.value > 1) {
    job.refusals.push_back(fmt::format(
        "the world size {} is the allocation's, and no SLURM_STEP_NUM_TASKS says srun started this process: the batch "
        "script (or salloc's shell) is one process; start the program with srun (or tools/launch)",
        job.world_size.reading));
  }
}

// Slurm's tasks per node add up to its task count, of the same level (step or job).
void check_slurm_tasks(const StarterFields& slurm, JobEnvironment& job) {
  if (slurm.tasks_per_node.empty() || job.world_size.variable.rfind("SLURM_", 0) != 0) return;
  const bool step_list = slurm.tasks_variable == "SLURM_STEP_TASKS_PER_NODE";
  const bool step_size = job.world_size.variable == "SLURM_STEP_NUM_TASKS";
  const int total = std::accumulate(slurm.tasks_per_node.begin(), slurm.tasks_per_node.end(), 0);
  if (step_list == step_size && total != job.world_size.value) {
    job.refusals.push_back(fmt::format("the world size {} does not match {}={}, {} tasks in all",
                                       job.world_size.reading, slurm.tasks_variable, env(slurm.tasks_variable.c_str()),
                                       total));
  }
}

// MASTER_ADDR set to the submit host (a login node), which is not a node of the job.
void check_submit_host(JobEnvironment& job) {
  const std::string submit = env("SLURM_SUBMIT_HOST");
  if (submit.empty() || job.master_addr.variable != "MASTER_ADDR" ||
      short_name(job.master_addr.value) != short_name(submit)) {
    return;
  }
  for (const char* variable : {"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST"}) {
    const std::string list = env(variable);
    if (list.empty()) continue;
    try {
      for (const std::string& host : expand_hostlist(list, variable)) {
        if (short_name(host) == short_name(submit)) return;
      }
    } catch (const Error&) {
      return;  // the hostlist's own refusal says what is wrong with it
    }
    job.refusals.push_back(fmt::format(
        "the store host {} is the submit host SLURM_SUBMIT_HOST={}, which is not among the job's nodes {}={}: the "
        "store runs on rank 0's node (unset MASTER_ADDR to take the first node of the job)",
        job.master_addr.reading, submit, variable, list));
    return;
  }
}

}  // namespace

JobEnvironment read_job_environment() {
  JobEnvironment job;
  const std::map<std::string, std::string> outer = outer_starters();
  for (const auto& entry : outer) job.ignored.push_back(entry.second);

  // This process's starters, the one that gives the rank first: each field comes from the
  // first of them that gives it.
  std::map<std::string, StarterFields> fields;
  std::vector<std::string> starters;
  for (const char* starter : kStarters) {
    if (!present(starter) || outer.count(starter)) continue;
    fields[starter] = read_starter(starter, job.refusals);
    starters.push_back(starter);
  }
  std::stable_partition(starters.begin(), starters.end(),
                        [&](const std::string& starter) { return fields[starter].counts.count(Field::kRank) > 0; });
  if (!starters.empty()) job.starter = starters.front();
  for (auto [field, target] :
       {std::pair{Field::kRank, &job.rank}, std::pair{Field::kWorldSize, &job.world_size},
        std::pair{Field::kLocalRank, &job.local_rank}, std::pair{Field::kLocalWorldSize, &job.local_world_size},
        std::pair{Field::kMasterPort, &job.master_port}}) {
    for (const std::string& starter : starters) {
      auto it = fields[starter].counts.find(field);
      if (it == fields[starter].counts.end()) continue;
      if (!target->known()) {
        *target = it->second;
      } else if (field != Field::kMasterPort && it->second.value != target->value) {
        // Two starters of this process must say the same (srun --mpi=pmi2 sets SLURM_PROCID and PMI_RANK alike).
        job.refusals.push_back(fmt::format("{} and {} disagree on the {} (exported by hand, or a launcher that sets "
                                           "no GROUP_RANK?)",
                                           target->reading, it->second.reading, field_name(field)));
      }
    }
  }
  for (const std::string& starter : starters) {
    if (!job.master_addr.known()) job.master_addr = fields[starter].master_addr;
  }
  StarterFields common = read_starter(nullptr, job.refusals);
  if (common.master_addr.known()) job.master_addr = common.master_addr;
  if (common.counts.count(Field::kMasterPort)) job.master_port = common.counts[Field::kMasterPort];
  if (job.master_port.known() && (job.master_port.value < 1 || job.master_port.value > 65535)) {
    job.refusals.push_back(fmt::format("the store port {} is not in 1..65535", job.master_port.reading));
  }
  check_ranges(job);
  check_slurm_step(job);
  if (fields.count("slurm")) check_slurm_tasks(fields["slurm"], job);
  check_submit_host(job);
  return job;
}

JobEnvironment resolve_job_environment(const std::string& caller) {
  JobEnvironment job = read_job_environment();
  BRISK_CHECK(job.refusals.empty(), "{}: the job's environment is refused (docs/cluster.md):\n  {}", caller,
              fmt::join(job.refusals, "\n  "));
  return job;
}

std::string store_host_hint(const JobEnvironment& job) {
  if (job.starter == "openmpi" || job.starter == "mpich/pmi" || job.starter == "pmix") {
    return fmt::format("{} gives no store host: set MASTER_ADDR to rank 0's host (and MASTER_PORT to a free port), "
                       "e.g. mpirun -x MASTER_ADDR=... (the MPI backend, not built yet, will broadcast it instead)",
                       job.starter);
  }
  return "set MASTER_ADDR to rank 0's host (tools/launch and torchrun set it)";
}

std::string describe(const JobEnvironment& job) {
  auto line = [](const char* name, const auto& field) {
    return field.known() ? fmt::format("{:<17} {:<10} from {}\n", name, field.value, field.reading)
                         : fmt::format("{:<17} {:<10} no variable gives it\n", name, "unknown");
  };
  std::string text = fmt::format("{:<17} {}\n", "starter", job.starter);
  text += line("rank", job.rank);
  text += line("world_size", job.world_size);
  text += line("local_rank", job.local_rank);
  text += line("local_world_size", job.local_world_size);
  text += line("master_addr", job.master_addr);
  text += line("master_port", job.master_port);
  for (const std::string& reason : job.ignored) text += fmt::format("ignored           {}\n", reason);
  for (const std::string& refusal : job.refusals) text += fmt::format("refused           {}\n", refusal);
  return text;
}

}  // namespace brisk::dist
