#pragma once
// Process-group backends by name, so init_process_group("nccl", ...) finds ProcessGroupNCCL
// when the cuda-only //distributed/nccl target is linked, without //distributed depending
// on CUDA (likewise "mpi", //distributed/mpi). "gloo" is registered by //distributed itself.
//
//   // in process_group_nccl.cc:
//   static const bool registered = brisk::dist::register_process_group_backend(
//       "nccl", [](std::shared_ptr<Store> store, int rank, int size, const ProcessGroupOptions& options) {
//         return std::make_shared<ProcessGroupNCCL>(std::move(store), rank, size, options);
//       });
#include <functional>
#include <memory>
#include <string>

#include "distributed/process_group.h"
#include "distributed/store/store.h"

namespace brisk::dist {

// `store` is private to the new group (a PrefixStore).
using ProcessGroupFactory = std::function<std::shared_ptr<ProcessGroup>(std::shared_ptr<Store> store, int rank,
                                                                        int size, const ProcessGroupOptions& options)>;

// Returns true so it can initialize a static; a second registration of a name replaces it.
bool register_process_group_backend(const std::string& name, ProcessGroupFactory factory);

// Throws, naming the registered backends, when `name` is unknown.
const ProcessGroupFactory& process_group_backend(const std::string& name);

// A backend whose starter knows the job by itself (MPI: mpirun starts every process and MPI
// numbers them) can bring up the job's store when the environment names none (no MASTER_ADDR):
// rank 0 hosts it and tells the others its address through the backend. `source` says where
// rank and world size came from ("MPI_COMM_WORLD"), for messages.
struct BackendRendezvous {
  std::shared_ptr<Store> store;
  int rank = -1;
  int world_size = 0;
  std::string source;
};
using BackendRendezvousFn = std::function<BackendRendezvous(const ProcessGroupOptions& options)>;
bool register_backend_rendezvous(const std::string& name, BackendRendezvousFn rendezvous);
// The backend's rendezvous, or null when it has none.
const BackendRendezvousFn* backend_rendezvous(const std::string& name);

}  // namespace brisk::dist
