#pragma once
// The default process group of a test worker started by the launcher, on the device that its
// command line names:
//
//   worker [--device cpu|sim|cuda|nccl] <what>
//
//   int main(int argc, char** argv) {
//     WorkerArgs args = parse_worker_args(argc, argv);   // args.rest: {"<what>"}
//     init_worker_group(args);                           // dist::default_group()
//
// "sim" puts rank r's Gloo group on sim:LOCAL_RANK, its own simulated device, as a GPU job
// puts each rank on cuda:LOCAL_RANK; its collectives then take only tensors on that device.
// "cuda" is a Gloo group on cuda:(LOCAL_RANK mod GPUs), so several ranks can share the one GPU
// of a test machine; "nccl" is an NCCL group on cuda:LOCAL_RANK, one rank per GPU. Both make
// their device current and need a CUDA build (the worker links //cuda and //distributed:nccl
// there).
#include <string>
#include <vector>

#include "tensor/device.h"

namespace brisk::dist::testing {

struct WorkerArgs {
  Device device;
  std::string backend;  // "gloo", or "nccl" for --device nccl
  std::vector<std::string> rest;  // the arguments after the options
};

// Throws brisk::Error for an unknown device name.
WorkerArgs parse_worker_args(int argc, char** argv);

// init_process_group(args.backend, "env://") on args.device, with a 20 s timeout so that a
// test fails well before the harness kills it.
void init_worker_group(const WorkerArgs& args);

}  // namespace brisk::dist::testing
