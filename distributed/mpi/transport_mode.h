#pragma once
// How the tensors of a ProcessGroupMPI on an accelerator reach MPI (transport modes:
// distributed/queued/transport_buffers.h), decided once per group at its creation from
// ProcessGroupOptions::mpi_cuda_direct when set, else the environment's BRISK_MPI_CUDA_DIRECT:
//   1     direct: device pointers go to MPI;
//   0     staged through host memory;
//   auto  (or unset) direct on CUDA where the library is CUDA-aware, staged otherwise.
// The simulated device stages under auto, as a GPU with a library that is not CUDA-aware does,
// and passes its memory directly under 1, standing in for a CUDA-aware library: that is how the
// direct path is tested without a GPU. A CPU group's tensors are host memory, used in place
// whatever the mode (kStaged is returned).
#include <string>

#include "distributed/mpi/mpi_library.h"
#include "distributed/process_group.h"
#include "distributed/queued/transport_buffers.h"

namespace brisk::dist {

// `library` is the MPI library's answer (mpi::cuda_awareness()); `where` starts messages
// ("ProcessGroupMPI 'default' rank 0/2"). Raises for direct on CUDA with a library that is not
// CUDA-aware, naming what asked for it and the library's answer, and for a value of
// BRISK_MPI_CUDA_DIRECT other than 1, 0 or auto.
TransportMode mpi_transport_mode(const std::string& where, Device device, const ProcessGroupOptions& options,
                                 const mpi::CudaAwareness& library);

}  // namespace brisk::dist
