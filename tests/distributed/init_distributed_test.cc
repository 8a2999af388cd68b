// dist::init_distributed in one process: a process started alone joins nothing, a named
// backend joins a world of one through env:// as a launcher sets it, devices follow the local
// rank, and impossible combinations are refused before joining, naming the option.
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <string>

#include "cuda/device.h"
#include "distributed/distributed.h"
#include "distributed/init_distributed.h"
#include "distributed/launch/free_port.h"

using namespace brisk;
using Catch::Contains;

namespace {

// The launcher's variables of a world of `world_size` in which this process is rank 0.
void set_launcher_env(int world_size, int local_rank) {
  for (const char* name : {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "OMPI_COMM_WORLD_RANK",
                           "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"}) {
    ::unsetenv(name);
  }
  ::setenv("RANK", "0", 1);
  ::setenv("WORLD_SIZE", std::to_string(world_size).c_str(), 1);
  ::setenv("LOCAL_RANK", std::to_string(local_rank).c_str(), 1);
  ::setenv("MASTER_ADDR", "127.0.0.1", 1);
  ::setenv("MASTER_PORT", std::to_string(launch::free_port("127.0.0.1")).c_str(), 1);
}

}  // namespace

TEST_CASE("init_distributed: a process started alone trains on its device without a process group") {
  set_launcher_env(1, 0);
  dist::DistributedContext alone = dist::init_distributed(dist::InitDistributedOptions().device("sim"));
  CHECK_FALSE(alone.enabled);
  CHECK_FALSE(dist::is_initialized());
  CHECK(alone.group == nullptr);
  CHECK(alone.device == sim_device(0));
  CHECK(alone.is_main());
  CHECK(alone.world_size == 1);
  dist::finish_distributed(alone);  // nothing to leave
}

TEST_CASE("init_distributed: a named backend joins the launcher's world, the group on the chosen device") {
  set_launcher_env(1, 2);
  dist::DistributedContext context =
      dist::init_distributed(dist::InitDistributedOptions().device("sim").backend("gloo"));
  CHECK(context.enabled);
  CHECK(dist::is_initialized());
  CHECK(context.rank == 0);
  CHECK(context.world_size == 1);
  CHECK(context.local_rank == 2);
  CHECK(context.backend == "gloo");
  CHECK(context.device == sim_device(2));  // "sim": the local rank's device
  REQUIRE(context.group == dist::default_group());
  CHECK(context.group->device() == sim_device(2));
  dist::finish_distributed(context);
  CHECK_FALSE(dist::is_initialized());
}

TEST_CASE("init_distributed: nccl with a CPU or simulated device is refused before joining, naming both") {
  set_launcher_env(2, 1);
  CHECK_THROWS_WITH(dist::init_distributed(dist::InitDistributedOptions().device("cpu").backend("nccl")),
                    Contains("init_distributed: backend nccl takes CUDA tensors only, and device cpu trains on cpu"));
  CHECK_THROWS_WITH(dist::init_distributed(dist::InitDistributedOptions().device("sim:0").backend("nccl")),
                    Contains("device sim:0 trains on sim:0"));
  CHECK_FALSE(dist::is_initialized());
  ::setenv("LOCAL_RANK", "one", 1);
  CHECK_THROWS_WITH(dist::init_distributed(), Contains("init_distributed: the job's environment is refused") &&
                                                  Contains("LOCAL_RANK=one is not a non-negative integer"));
}

TEST_CASE("resolve_device: cpu, numbered devices as given, cuda and sim by local rank when distributed") {
  CHECK(dist::resolve_device("cpu", true, 1) == kCPU);
  CHECK(dist::resolve_device("sim", false, 0) == sim_device(0));
  CHECK(dist::resolve_device("sim", true, 1) == sim_device(1));
  CHECK(dist::resolve_device("sim:3", true, 1) == sim_device(3));
  CHECK(dist::resolve_device("sim:2", false, 0) == sim_device(2));
  CHECK_THROWS_WITH(dist::resolve_device("tpu", false, 0), Contains("invalid device string 'tpu'"));
}

TEST_CASE("resolve_device: cuda on a machine without a GPU is an error naming the device") {
  if (cuda::is_available()) return;  // a GPU is there: nothing to refuse
  CHECK(dist::resolve_device("auto", true, 1) == kCPU);
  CHECK_THROWS_WITH(dist::resolve_device("cuda", true, 1), Contains("device cuda: "));
  CHECK_THROWS_WITH(dist::resolve_device("cuda:1", false, 0), Contains("device cuda:1: "));
}

TEST_CASE("init_distributed: the job's environment as Slurm leaves it: ranks, local rank and device") {
  set_launcher_env(1, 0);
  for (const char* name : {"RANK", "WORLD_SIZE", "LOCAL_RANK"}) ::unsetenv(name);
  ::setenv("SLURM_PROCID", "0", 1);
  ::setenv("SLURM_NTASKS", "1", 1);
  ::setenv("SLURM_LOCALID", "3", 1);
  dist::DistributedContext context =
      dist::init_distributed(dist::InitDistributedOptions().device("sim").backend("gloo"));
  CHECK(context.world_size == 1);
  CHECK(context.local_rank == 3);
  CHECK(context.device == sim_device(3));
  dist::finish_distributed(context);
  ::setenv("SLURM_PROCID", "1", 1);  // beyond the step's tasks: refused before joining
  CHECK_THROWS_WITH(dist::init_distributed(dist::InitDistributedOptions().device("sim").backend("gloo")),
                    Contains("init_distributed: the job's environment is refused") &&
                        Contains("the rank SLURM_PROCID=1 is not below the world size SLURM_NTASKS=1"));
  CHECK_FALSE(dist::is_initialized());
  for (const char* name : {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"}) ::unsetenv(name);
}
