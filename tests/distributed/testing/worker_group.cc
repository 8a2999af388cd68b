#include "tests/distributed/testing/worker_group.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>

#include "cuda/device.h"
#include "distributed/distributed.h"
#include "distributed/job_environment.h"
#include "tensor/error.h"

namespace brisk::dist::testing {

namespace {

// cuda:LOCAL_RANK when there are that many GPUs; with fewer, Gloo ranks share them (NCCL
// refuses two ranks of one communicator on one GPU, so the nccl tests start one rank per GPU).
Device cuda_device_for(int local_rank, bool shared) {
  const int count = cuda::device_count();
  BRISK_CHECK(count > 0, "test worker: a CUDA device is needed: {}", cuda::unavailable_reason());
  BRISK_CHECK(shared || local_rank < count, "test worker: local rank {} has no GPU of its own ({} visible)", local_rank,
              count);
  const int index = local_rank % count;
  cuda::set_device(index);
  return cuda_device(index);
}

}  // namespace

WorkerArgs parse_worker_args(int argc, char** argv) {
  WorkerArgs args{kCPU, "gloo", {}};
  int i = 1;
  if (i + 1 < argc && std::string(argv[i]) == "--device") {
    const std::string name = argv[i + 1];
    BRISK_CHECK(name == "cpu" || name == "sim" || name == "cuda" || name == "nccl",
                "test worker: --device {}: expected cpu, sim, cuda or nccl", name);
    // LOCAL_RANK from the launcher, OMPI_COMM_WORLD_LOCAL_RANK from mpirun.
    const int local_rank = name == "cpu" ? 0 : read_job_environment().local_rank.value;
    BRISK_CHECK(local_rank >= 0, "test worker: --device {} needs a local rank (start it with the launcher or mpirun)",
                name);
    if (name == "sim") args.device = sim_device(local_rank);
    if (name == "cuda") args.device = cuda_device_for(local_rank, true);
    if (name == "nccl") {
      args.device = cuda_device_for(local_rank, false);
      args.backend = "nccl";
    }
    i += 2;
  }
  if (i + 1 < argc && std::string(argv[i]) == "--backend") {
    BRISK_CHECK(args.backend == "gloo", "test worker: --backend with --device nccl");
    args.backend = argv[i + 1];
    i += 2;
  }
  for (; i < argc; ++i) args.rest.push_back(argv[i]);
  return args;
}

void init_worker_group(const WorkerArgs& args) {
  ProcessGroupOptions options;
  options.timeout = std::chrono::seconds(20);
  options.device = args.device;
  init_process_group(args.backend, "env://", -1, -1, options);
}

int worker_main(int argc, char** argv, const std::string& scenarios, const WorkerRun& run) {
  try {
    WorkerArgs args = parse_worker_args(argc, argv);
    if (args.rest.size() != 1) {
      std::fprintf(stderr, "usage: %s [--device cpu|sim|cuda|nccl] [--backend gloo|mpi] %s\n",
                   std::filesystem::path(argv[0]).filename().c_str(), scenarios.c_str());
      return 2;
    }
    init_worker_group(args);
    return run(args.rest[0], default_group());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}

}  // namespace brisk::dist::testing
