// The job's environment as each starter leaves it (set here with setenv, restored after):
// precedence, Slurm's lists and port, the starters nested in one another, and every refusal.
#include "distributed/job_environment.h"

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <map>
#include <optional>
#include <string>

using namespace brisk;
using Catch::Contains;

namespace {

// Every variable of docs/cluster.md's table, unset for the test's life and restored after it.
class JobVariables {
 public:
  explicit JobVariables(const std::map<std::string, std::string>& set) {
    for (const char* name : {"RANK",
                             "WORLD_SIZE",
                             "LOCAL_RANK",
                             "LOCAL_WORLD_SIZE",
                             "GROUP_RANK",
                             "MASTER_ADDR",
                             "MASTER_PORT",
                             "SLURM_PROCID",
                             "SLURM_STEP_NUM_TASKS",
                             "SLURM_NTASKS",
                             "SLURM_LOCALID",
                             "SLURM_STEP_TASKS_PER_NODE",
                             "SLURM_TASKS_PER_NODE",
                             "SLURM_NODEID",
                             "SLURM_STEP_NODELIST",
                             "SLURM_JOB_NODELIST",
                             "SLURM_JOB_ID",
                             "SLURM_SUBMIT_HOST",
                             "OMPI_COMM_WORLD_RANK",
                             "OMPI_COMM_WORLD_SIZE",
                             "OMPI_COMM_WORLD_LOCAL_RANK",
                             "OMPI_COMM_WORLD_LOCAL_SIZE",
                             "PMI_RANK",
                             "PMI_SIZE",
                             "MPI_LOCALRANKID",
                             "MPI_LOCALNRANKS",
                             "PMIX_RANK"}) {
      const char* value = ::getenv(name);
      saved_[name] = value == nullptr ? std::nullopt : std::optional<std::string>(value);
      ::unsetenv(name);
    }
    for (const auto& [name, value] : set) ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~JobVariables() {
    for (const auto& [name, value] : saved_) {
      if (value) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }
  JobVariables(const JobVariables&) = delete;
  JobVariables& operator=(const JobVariables&) = delete;

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

// The one refusal of the environment `set`.
std::string refusal_of(const std::map<std::string, std::string>& set) {
  JobVariables variables(set);
  dist::JobEnvironment job = dist::read_job_environment();
  REQUIRE(job.refusals.size() == 1);
  return job.refusals[0];
}

}  // namespace

TEST_CASE("job environment: a process started on its own has no starter and knows nothing") {
  JobVariables variables({});
  dist::JobEnvironment job = dist::resolve_job_environment("test");
  CHECK(job.starter == "none");
  CHECK_FALSE(job.rank.known());
  CHECK(job.rank.value == -1);
  CHECK(job.world_size.value == -1);
  CHECK_FALSE(job.master_addr.known());
  CHECK(job.refusals.empty());
}

TEST_CASE("job environment: torchrun's variables, each field with its variable") {
  JobVariables variables({{"RANK", "5"},
                          {"WORLD_SIZE", "8"},
                          {"LOCAL_RANK", "1"},
                          {"LOCAL_WORLD_SIZE", "4"},
                          {"MASTER_ADDR", "10.0.0.1"},
                          {"MASTER_PORT", "29500"}});
  dist::JobEnvironment job = dist::resolve_job_environment("test");
  CHECK(job.starter == "torchrun");
  CHECK(job.rank.value == 5);
  CHECK(job.rank.variable == "RANK");
  CHECK(job.rank.reading == "RANK=5");
  CHECK(job.world_size.value == 8);
  CHECK(job.local_rank.value == 1);
  CHECK(job.local_world_size.value == 4);
  CHECK(job.local_world_size.variable == "LOCAL_WORLD_SIZE");
  CHECK(job.master_addr.value == "10.0.0.1");
  CHECK(job.master_addr.variable == "MASTER_ADDR");
  CHECK(job.master_port.value == 29500);
  CHECK(job.master_port.variable == "MASTER_PORT");
}

TEST_CASE("job environment: Slurm's step variables before the job's, the store on the step's first node") {
  JobVariables variables({{"SLURM_PROCID", "6"},
                          {"SLURM_STEP_NUM_TASKS", "7"},
                          {"SLURM_NTASKS", "16"},
                          {"SLURM_LOCALID", "0"},
                          {"SLURM_STEP_TASKS_PER_NODE", "2(x3),1"},
                          {"SLURM_TASKS_PER_NODE", "4(x4)"},
                          {"SLURM_NODEID", "3"},
                          {"SLURM_STEP_NODELIST", "node[02-04,07]"},
                          {"SLURM_JOB_NODELIST", "node[01-04,07]"},
                          {"SLURM_JOB_ID", "1234567"}});
  dist::JobEnvironment job = dist::resolve_job_environment("test");
  CHECK(job.starter == "slurm");
  CHECK(job.rank.value == 6);
  CHECK(job.rank.variable == "SLURM_PROCID");
  CHECK(job.world_size.value == 7);
  CHECK(job.world_size.variable == "SLURM_STEP_NUM_TASKS");
  CHECK(job.local_rank.value == 0);
  CHECK(job.local_world_size.value == 1);  // node 3 of 2,2,2,1
  CHECK(job.local_world_size.reading == "SLURM_STEP_TASKS_PER_NODE=2(x3),1, node SLURM_NODEID=3's count");
  CHECK(job.master_addr.value == "node02");
  CHECK(job.master_addr.reading == "SLURM_STEP_NODELIST=node[02-04,07], its first host");
  CHECK(job.master_port.value == 15000 + 4567);  // 15000 + the job id mod 10000
  CHECK(job.master_port.variable == "SLURM_JOB_ID");
}

TEST_CASE("job environment: Slurm's job variables when there is no step; MASTER_ADDR and MASTER_PORT win") {
  // A batch script of one task runs the program itself.
  JobVariables variables({{"SLURM_PROCID", "0"},
                          {"SLURM_NTASKS", "1"},
                          {"SLURM_LOCALID", "0"},
                          {"SLURM_TASKS_PER_NODE", "1"},
                          {"SLURM_JOB_NODELIST", "gpu[7-8]"},
                          {"SLURM_JOB_ID", "42"},
                          {"MASTER_ADDR", "gpu8"},
                          {"MASTER_PORT", "29400"}});
  dist::JobEnvironment job = dist::resolve_job_environment("test");
  CHECK(job.world_size.variable == "SLURM_NTASKS");
  CHECK(job.local_world_size.variable == "SLURM_TASKS_PER_NODE");
  CHECK(job.master_addr.value == "gpu8");
  CHECK(job.master_addr.variable == "MASTER_ADDR");
  CHECK(job.master_port.value == 29400);
  ::unsetenv("MASTER_ADDR");
  ::unsetenv("MASTER_PORT");
  job = dist::resolve_job_environment("test");
  CHECK(job.master_addr.value == "gpu7");
  CHECK(job.master_addr.variable == "SLURM_JOB_NODELIST");
  CHECK(job.master_port.value == 15042);
}

TEST_CASE("job environment: the batch script of a job of several tasks is one process, not the job") {
  CHECK_THAT(refusal_of({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "4"}, {"SLURM_TASKS_PER_NODE", "2(x2)"}}),
             Contains("the world size SLURM_NTASKS=4 is the allocation's, and no SLURM_STEP_NUM_TASKS says srun "
                      "started this process") &&
                 Contains("start the program with srun (or tools/launch)"));
  // tools/launch in the batch script: its workers' variables describe them; Slurm's the allocation.
  JobVariables variables(
      {{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "4"}, {"RANK", "3"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "3"}});
  dist::JobEnvironment job = dist::resolve_job_environment("test");
  CHECK(job.starter == "torchrun");
  CHECK(job.rank.value == 3);
  REQUIRE(job.ignored.size() == 1);
  CHECK_THAT(job.ignored[0], Contains("slurm: its variables describe the allocation (the batch script"));
}

TEST_CASE("job environment: Open MPI's, MPICH's and PMIx's variables") {
  {
    JobVariables variables({{"OMPI_COMM_WORLD_RANK", "3"},
                            {"OMPI_COMM_WORLD_SIZE", "4"},
                            {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                            {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}});
    dist::JobEnvironment job = dist::resolve_job_environment("test");
    CHECK(job.starter == "openmpi");
    CHECK(job.rank.value == 3);
    CHECK(job.world_size.variable == "OMPI_COMM_WORLD_SIZE");
    CHECK(job.local_rank.variable == "OMPI_COMM_WORLD_LOCAL_RANK");
    CHECK(job.local_world_size.value == 2);
    CHECK_FALSE(job.master_addr.known());
    CHECK_THAT(dist::store_host_hint(job), Contains("openmpi gives no store host: set MASTER_ADDR") &&
                                               Contains("the MPI backend, not built yet, will broadcast it"));
  }
  {
    JobVariables variables({{"PMI_RANK", "2"}, {"PMI_SIZE", "3"}, {"MPI_LOCALRANKID", "0"}, {"MPI_LOCALNRANKS", "1"}});
    dist::JobEnvironment job = dist::resolve_job_environment("test");
    CHECK(job.starter == "mpich/pmi");
    CHECK(job.rank.reading == "PMI_RANK=2");
    CHECK(job.world_size.value == 3);
    CHECK(job.local_rank.variable == "MPI_LOCALRANKID");
    CHECK(job.local_world_size.variable == "MPI_LOCALNRANKS");
  }
  {
    JobVariables variables(std::map<std::string, std::string>{{"PMIX_RANK", "1"}});
    dist::JobEnvironment job = dist::read_job_environment();
    CHECK(job.starter == "pmix");
    CHECK(job.rank.value == 1);
    CHECK_FALSE(job.world_size.known());  // PMIx says it through its API only
    REQUIRE(job.refusals.size() == 1);
    CHECK(job.refusals[0] ==
          "the rank PMIX_RANK=1 is set but no variable of pmix gives the world size: set WORLD_SIZE");
    ::setenv("WORLD_SIZE", "2", 1);  // the starter is still the one that gives the rank
    job = dist::resolve_job_environment("test");
    CHECK(job.starter == "pmix");
    CHECK(job.rank.variable == "PMIX_RANK");
    CHECK(job.world_size.variable == "WORLD_SIZE");
  }
}

TEST_CASE("job environment: starters that agree; the first of the table is the one reported") {
  // srun --mpi=pmi2 sets Slurm's and PMI's variables alike.
  JobVariables variables({{"SLURM_PROCID", "1"}, {"SLURM_STEP_NUM_TASKS", "2"}, {"PMI_RANK", "1"}, {"PMI_SIZE", "2"}});
  dist::JobEnvironment job = dist::resolve_job_environment("test");
  CHECK(job.starter == "slurm");
  CHECK(job.rank.variable == "SLURM_PROCID");
  CHECK(job.ignored.empty());
}

TEST_CASE("job environment: a launcher's worker under srun, and mpirun in an allocation, ignore Slurm's task") {
  {
    // srun -N 2 running tools/launch (or torchrun) with 4 workers a node: SLURM_PROCID is the launcher's.
    JobVariables variables({{"SLURM_PROCID", "1"},
                            {"SLURM_STEP_NUM_TASKS", "2"},
                            {"SLURM_STEP_NODELIST", "n[1-2]"},
                            {"RANK", "6"},
                            {"WORLD_SIZE", "8"},
                            {"LOCAL_RANK", "2"},
                            {"GROUP_RANK", "1"},
                            {"MASTER_ADDR", "n1"},
                            {"MASTER_PORT", "29500"}});
    dist::JobEnvironment job = dist::resolve_job_environment("test");
    CHECK(job.starter == "torchrun");
    CHECK(job.rank.value == 6);
    REQUIRE(job.ignored.size() == 1);
    CHECK_THAT(job.ignored[0], Contains("slurm: its variables describe the process that ran the launcher"));
  }
  {
    // mpirun in an sbatch script: its daemons run in a Slurm step of one task a node.
    JobVariables variables({{"SLURM_PROCID", "0"},
                            {"SLURM_STEP_NUM_TASKS", "1"},
                            {"OMPI_COMM_WORLD_RANK", "3"},
                            {"OMPI_COMM_WORLD_SIZE", "4"}});
    dist::JobEnvironment job = dist::resolve_job_environment("test");
    CHECK(job.starter == "openmpi");
    CHECK(job.rank.value == 3);
    CHECK(job.world_size.value == 4);
    REQUIRE(job.ignored.size() == 1);
    CHECK_THAT(job.ignored[0], Contains("the allocation mpirun runs in"));
  }
}

TEST_CASE("job environment: a rank or local rank beyond the tasks is refused, naming both variables") {
  CHECK_THAT(refusal_of({{"RANK", "2"}, {"WORLD_SIZE", "2"}}),
             Contains("the rank RANK=2 is not below the world size WORLD_SIZE=2"));
  CHECK_THAT(refusal_of({{"SLURM_PROCID", "4"}, {"SLURM_STEP_NUM_TASKS", "4"}, {"SLURM_NTASKS", "8"}}),
             Contains("the rank SLURM_PROCID=4 is not below the world size SLURM_STEP_NUM_TASKS=4"));
  CHECK_THAT(refusal_of({{"RANK", "0"}, {"WORLD_SIZE", "0"}}),
             Contains("the world size WORLD_SIZE=0 is not at least 1"));
  CHECK_THAT(refusal_of({{"RANK", "0"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "2"}, {"LOCAL_WORLD_SIZE", "2"}}),
             Contains("the local rank LOCAL_RANK=2 is not below the local world size LOCAL_WORLD_SIZE=2"));
  CHECK_THAT(refusal_of({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_WORLD_SIZE", "4"}}),
             Contains("the local world size LOCAL_WORLD_SIZE=4 is larger than the world size WORLD_SIZE=2"));
}

TEST_CASE("job environment: Slurm's tasks per node must add up to its tasks") {
  CHECK_THAT(
      refusal_of({{"SLURM_PROCID", "0"}, {"SLURM_STEP_NUM_TASKS", "8"}, {"SLURM_STEP_TASKS_PER_NODE", "2(x3)"}}),
      Contains("the world size SLURM_STEP_NUM_TASKS=8 does not match SLURM_STEP_TASKS_PER_NODE=2(x3), 6 tasks in all"));
  CHECK_THAT(refusal_of({{"SLURM_PROCID", "0"}, {"SLURM_STEP_NUM_TASKS", "3"}, {"SLURM_STEP_TASKS_PER_NODE", "1,1"}}),
             Contains("the world size SLURM_STEP_NUM_TASKS=3 does not match SLURM_STEP_TASKS_PER_NODE=1,1, 2 tasks"));
}

TEST_CASE("job environment: two starters of this process that disagree are refused, naming both") {
  CHECK_THAT(refusal_of({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"SLURM_PROCID", "1"}, {"SLURM_STEP_NUM_TASKS", "2"}}),
             Contains("RANK=0 and SLURM_PROCID=1 disagree on the rank"));
  CHECK_THAT(refusal_of({{"SLURM_PROCID", "0"}, {"SLURM_STEP_NUM_TASKS", "2"}, {"PMI_RANK", "0"}, {"PMI_SIZE", "4"}}),
             Contains("SLURM_STEP_NUM_TASKS=2 and PMI_SIZE=4 disagree on the world size"));
}

TEST_CASE("job environment: a store host that is the submit host, not a node of the job, is refused") {
  const std::map<std::string, std::string> slurm = {{"SLURM_PROCID", "0"},
                                                    {"SLURM_STEP_NUM_TASKS", "2"},
                                                    {"SLURM_JOB_NODELIST", "node[1-2]"},
                                                    {"SLURM_SUBMIT_HOST", "login1.cluster"},
                                                    {"MASTER_PORT", "29500"}};
  std::map<std::string, std::string> on_login = slurm;
  on_login["MASTER_ADDR"] = "login1";
  CHECK_THAT(refusal_of(on_login),
             Contains("the store host MASTER_ADDR=login1 is the submit host SLURM_SUBMIT_HOST=login1.cluster, which "
                      "is not among the job's nodes SLURM_JOB_NODELIST=node[1-2]"));
  std::map<std::string, std::string> on_node = slurm;
  on_node["MASTER_ADDR"] = "node1";
  on_node["SLURM_SUBMIT_HOST"] = "node1";  // submitted from a node of the job: fine
  JobVariables variables(on_node);
  CHECK(dist::read_job_environment().refusals.empty());
}

TEST_CASE("job environment: values that are not numbers, lists or ports are refused, naming the variable") {
  CHECK_THAT(refusal_of({{"RANK", "x1"}, {"WORLD_SIZE", "2"}}), Contains("RANK=x1 is not a non-negative integer"));
  CHECK_THAT(refusal_of({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}, {"SLURM_JOB_NODELIST", "n[1"}}),
             Contains("SLURM_JOB_NODELIST='n[1' is not a Slurm hostlist"));
  CHECK_THAT(refusal_of({{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"MASTER_PORT", "70000"}}),
             Contains("the store port MASTER_PORT=70000 is not in 1..65535"));
  JobVariables variables({{"RANK", "3"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "-1"}});
  CHECK_THROWS_WITH(dist::resolve_job_environment("init_distributed"),
                    Contains("init_distributed: the job's environment is refused (docs/cluster.md):\n  LOCAL_RANK=-1 "
                             "is not a non-negative integer\n  the rank RANK=3 is not below the world size"));
}

TEST_CASE("describe: each field, its value and its reading; the starter; what is ignored and refused") {
  JobVariables variables({{"SLURM_PROCID", "0"},
                          {"SLURM_NTASKS", "1"},
                          {"SLURM_JOB_NODELIST", "a[1-2]"},
                          {"OMPI_COMM_WORLD_RANK", "0"},
                          {"OMPI_COMM_WORLD_SIZE", "1"}});
  const std::string text = dist::describe(dist::read_job_environment());
  CHECK_THAT(text, Contains("starter           openmpi\n"));
  CHECK_THAT(text, Contains("rank              0          from OMPI_COMM_WORLD_RANK=0\n"));
  CHECK_THAT(text, Contains("master_addr       unknown    no variable gives it\n"));
  CHECK_THAT(text, Contains("ignored           slurm: its variables describe the allocation mpirun runs in"));
  ::setenv("OMPI_COMM_WORLD_RANK", "1", 1);
  CHECK_THAT(dist::describe(dist::read_job_environment()),
             Contains("refused           the rank OMPI_COMM_WORLD_RANK=1 is not below the world size"));
}
