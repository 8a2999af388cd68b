// init_process_group and friends in one process (world size 1): argument and environment
// errors, the group's life cycle, subgroups and the free functions on a single rank.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <string>

#include "distributed/backend_registry.h"
#include "distributed/distributed.h"
#include "tensor/error.h"
#include "tensor/native/ops.h"

using namespace brisk;

namespace {

std::string fresh_file(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + name + std::to_string(::getpid());
  ::unlink(path.c_str());
  return path;
}

// Clears the rendezvous variables for one test and restores nothing: tests set what they need.
void clear_env() {
  for (const char* name : {"RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "SLURM_PROCID", "SLURM_NTASKS",
                           "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}) {
    ::unsetenv(name);
  }
}

}  // namespace

TEST_CASE("init_process_group: a world of one through file://, and its life cycle") {
  clear_env();
  std::string path = fresh_file("init_single");
  REQUIRE_FALSE(dist::is_initialized());
  REQUIRE_THROWS_WITH(dist::get_rank(), Catch::Contains("init_process_group first"));
  dist::init_process_group("gloo", "file://" + path, 1, 0);
  REQUIRE(dist::is_initialized());
  REQUIRE(dist::get_rank() == 0);
  REQUIRE(dist::get_world_size() == 1);
  REQUIRE(dist::get_backend() == "gloo");
  REQUIRE_THROWS_WITH(dist::init_process_group("gloo", "file://" + path, 1, 0), Catch::Contains("already initialized"));

  Tensor t = native::full({3}, 2.0, TensorOptions(kFloat32));
  dist::all_reduce(t, dist::ReduceOp::AVG);
  REQUIRE(t.to_vector<float>() == std::vector<float>{2, 2, 2});
  auto work = dist::all_reduce(t, dist::ReduceOp::SUM, nullptr, /*async_op=*/true);
  work->wait();
  REQUIRE(work->is_success());
  auto self = dist::new_group({0});
  REQUIRE(self != nullptr);
  REQUIRE(dist::get_global_rank(self, 0) == 0);
  REQUIRE_THROWS_WITH(dist::new_group({0, 1}), Catch::Contains("not all in [0, 1)"));
  REQUIRE_THROWS_WITH(dist::broadcast(t, 3), Catch::Contains("src rank 3 is not in the group"));
  dist::destroy_process_group();
  REQUIRE_FALSE(dist::is_initialized());
  ::unlink(path.c_str());
}

TEST_CASE("init_process_group: errors name the missing variable or the bad argument") {
  clear_env();
  REQUIRE_THROWS_WITH(dist::init_process_group("gloo", "env://"),
                      Catch::Contains("the rank is unknown") && Catch::Contains("(RANK, SLURM_PROCID"));
  ::setenv("RANK", "0", 1);
  REQUIRE_THROWS_WITH(dist::init_process_group("gloo", "env://"),
                      Catch::Contains("the rank RANK=0 is set but no variable of torchrun gives the world size"));
  ::setenv("WORLD_SIZE", "1", 1);
  REQUIRE_THROWS_WITH(dist::init_process_group("gloo", "env://"),
                      Catch::Contains("the store host is unknown: set MASTER_ADDR"));
  ::setenv("MASTER_ADDR", "127.0.0.1", 1);
  REQUIRE_THROWS_WITH(dist::init_process_group("gloo", "env://"),
                      Catch::Contains("the store port is unknown: set MASTER_PORT"));
  ::setenv("MASTER_PORT", "70000", 1);
  REQUIRE_THROWS_WITH(dist::init_process_group("gloo", "env://"),
                      Catch::Contains("MASTER_PORT=70000 is not in 1..65535"));
  ::setenv("RANK", "x1", 1);
  REQUIRE_THROWS_WITH(dist::init_process_group("gloo", "env://"),
                      Catch::Contains("RANK=x1 is not a non-negative integer"));
  clear_env();
  REQUIRE_THROWS_WITH(dist::init_process_group("gloo", "env://", 2, 2),
                      Catch::Contains("rank 2 (from argument) is not below the world size 2"));
  REQUIRE_THROWS_WITH(dist::init_process_group("gloo", "redis://x", 1, 0), Catch::Contains("redis://x"));
  REQUIRE_THROWS_WITH(dist::init_process_group("gloo", "tcp://nohostport", 1, 0), Catch::Contains("tcp://host:port"));
  REQUIRE_THROWS_WITH(dist::init_process_group("mpi", "file://" + fresh_file("x"), 1, 0),
                      Catch::Contains("unknown backend 'mpi'") && Catch::Contains("gloo"));
  REQUIRE_FALSE(dist::is_initialized());
}

TEST_CASE("init_process_group: SLURM and Open MPI variables stand in for RANK and WORLD_SIZE") {
  clear_env();
  std::string path = fresh_file("init_slurm");
  ::setenv("SLURM_PROCID", "0", 1);
  ::setenv("SLURM_NTASKS", "1", 1);
  dist::init_process_group("gloo", "file://" + path);
  REQUIRE(dist::get_rank() == 0);
  REQUIRE(dist::get_world_size() == 1);
  dist::destroy_process_group();
  ::unlink(path.c_str());
  clear_env();
  ::setenv("OMPI_COMM_WORLD_RANK", "3", 1);
  ::setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
  REQUIRE_THROWS_WITH(dist::init_process_group("gloo", "file://" + path),
                      Catch::Contains("the rank OMPI_COMM_WORLD_RANK=3 is not below the world size "
                                      "OMPI_COMM_WORLD_SIZE=2"));
  clear_env();
}

TEST_CASE("init_process_group(env://) under srun: the store on the step's first node, at the job id's port") {
  clear_env();
  ::setenv("SLURM_PROCID", "0", 1);
  ::setenv("SLURM_STEP_NUM_TASKS", "1", 1);
  ::setenv("SLURM_STEP_NODELIST", "127.0.0.1", 1);
  // A port of 15000-24999 that differs between runs, so that two runs at once do not collide.
  const int job_id = 90000 + ::getpid() % 10000;
  ::setenv("SLURM_JOB_ID", std::to_string(job_id).c_str(), 1);
  dist::init_process_group("gloo", "env://");
  REQUIRE(dist::get_rank() == 0);
  REQUIRE(dist::get_world_size() == 1);
  REQUIRE(std::string(std::getenv("MASTER_ADDR")) == "127.0.0.1");  // exported for Gloo's interface choice
  dist::destroy_process_group();
  for (const char* name : {"SLURM_STEP_NUM_TASKS", "SLURM_STEP_NODELIST", "SLURM_JOB_ID"}) ::unsetenv(name);
  clear_env();
}

TEST_CASE("register_process_group_backend: a registered factory is used by name") {
  clear_env();
  std::string path = fresh_file("init_custom");
  int made = 0;
  dist::register_process_group_backend(
      "counting", [&](std::shared_ptr<dist::Store> store, int rank, int size, const dist::ProcessGroupOptions& o) {
        ++made;
        return dist::process_group_backend("gloo")(std::move(store), rank, size, o);
      });
  dist::init_process_group("counting", "file://" + path, 1, 0);
  dist::new_group({0});
  REQUIRE(made == 2);
  REQUIRE(dist::get_backend() == "counting");
  dist::destroy_process_group();
  ::unlink(path.c_str());
}
