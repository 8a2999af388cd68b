#pragma once
// dist::ProcessGroupMPI: the collectives of ProcessGroup over MPI (Open MPI; as
// c10d::ProcessGroupMPI, without its limits), for jobs started by mpirun/mpiexec or srun.
//
//   dist::init_process_group("mpi");   // under mpirun: rank and size from MPI, no MASTER_ADDR needed
//
// Every operation of ProcessGroup, asynchronous through Work, on every dtype (float16 and
// bfloat16 reduced in float32 and rounded once); subgroups (dist::new_group) are communicators
// of their own. Operations run in call order on the group's worker thread as MPI's nonblocking
// calls, each waited for at most `timeout`, so a missing rank fails the Work naming the
// collective instead of hanging; the group also has a store (rank 0 hosts it, the MPI
// rendezvous passes its address: distributed/mpi/mpi_rendezvous.h), so heartbeats, the stall
// timeout, the desync check and the flight recorder work as on Gloo (distributed/queued/).
//
// Creating a group is collective over its members: each publishes its MPI rank in the group's
// store and waits for the others for the rendezvous timeout, then fails naming the ranks that
// never came, before anything calls MPI.
//
// Tensors of an accelerator (cuda:N, sim:N) are staged through host memory, or, where the
// library is CUDA-aware, passed to MPI as device pointers once the caller's current stream is
// synchronized (distributed/queued/transport_buffers.h); ProcessGroupOptions::mpi_cuda_direct
// or BRISK_MPI_CUDA_DIRECT chooses (distributed/mpi/transport_mode.h). Open MPI takes device
// memory in blocking collectives only, so there each collective is a blocking call on a thread
// of its own, still waited for at most `timeout`. Threads: distributed/mpi/mpi_library.h.
#include <memory>
#include <string>

#include "distributed/process_group.h"
#include "distributed/store/store.h"

namespace brisk::dist {

class ProcessGroupMPI : public ProcessGroup {
 public:
  // `store` should be private to this group (a PrefixStore); `rank` and `size` are the group's.
  ProcessGroupMPI(std::shared_ptr<Store> store, int rank, int size, ProcessGroupOptions options = {},
                  std::string name = "default");
  ~ProcessGroupMPI() override;  // finishes queued work first

  std::string backend_name() const override { return "mpi"; }

  BRISK_PROCESS_GROUP_OVERRIDES

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace brisk::dist
