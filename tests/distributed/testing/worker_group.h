#pragma once
// The default process group of a test worker started by the launcher, on the device that its
// command line names:
//
//   worker [--device cpu|sim|cuda|nccl] [--backend gloo|mpi] <what>
//
//   int run(const std::string& scenario, const std::shared_ptr<ProcessGroup>& group);
//   int main(int argc, char** argv) { return worker_main(argc, argv, "all|<scenario>", run); }
//
// "sim" puts rank r's Gloo group on sim:LOCAL_RANK, its own simulated device, as a GPU job
// puts each rank on cuda:LOCAL_RANK; its collectives then take only tensors on that device.
// "cuda" is a Gloo group on cuda:(LOCAL_RANK mod GPUs), so several ranks can share the one GPU
// of a test machine; "nccl" is an NCCL group on cuda:LOCAL_RANK, one rank per GPU. Both make
// their device current and need a CUDA build (the worker links //cuda and //distributed/nccl
// there). `--backend mpi` (the _mpi_test twins, under mpirun) puts the group on MPI instead of
// Gloo, on the same device (staged through host memory); the worker links //distributed/mpi.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "distributed/process_group.h"
#include "tensor/device.h"

namespace brisk::dist::testing {

struct WorkerArgs {
  Device device;
  std::string backend;            // "gloo", "nccl" for --device nccl, or --backend's
  std::vector<std::string> rest;  // the arguments after the options
};

// Throws brisk::Error for an unknown device name.
WorkerArgs parse_worker_args(int argc, char** argv);

// init_process_group(args.backend, "env://") on args.device, with a 20 s timeout so that a
// test fails well before the harness kills it.
void init_worker_group(const WorkerArgs& args);

// The whole main() of a worker that takes one argument after the options, the scenario: prints
// "usage: <program> [--device cpu|sim|cuda|nccl] <scenarios>" and returns 2 without exactly one;
// else creates the default group and returns run(scenario, group). An exception ends it with
// "error: <what>" on stderr and status 1.
using WorkerRun = std::function<int(const std::string& scenario, const std::shared_ptr<ProcessGroup>& group)>;
int worker_main(int argc, char** argv, const std::string& scenarios, const WorkerRun& run);

}  // namespace brisk::dist::testing
