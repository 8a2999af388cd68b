// mpi_transport_mode: how a ProcessGroupMPI's tensors reach MPI, from the option, the
// environment and the library's answer, and the refusals, which name what was read.
#include "distributed/mpi/transport_mode.h"

#include <stdlib.h>

#include <catch2/catch.hpp>

#include "tensor/error.h"

using namespace brisk;
using namespace brisk::dist;

namespace {

const mpi::CudaAwareness kAware{true, "MPIX_Query_cuda_support() returned 1"};
const mpi::CudaAwareness kNotAware{false, "MPIX_Query_cuda_support() returned 0"};

TransportMode mode(Device device, std::optional<bool> option, const char* variable, const mpi::CudaAwareness& library) {
  if (variable != nullptr) setenv("BRISK_MPI_CUDA_DIRECT", variable, 1);
  else unsetenv("BRISK_MPI_CUDA_DIRECT");
  ProcessGroupOptions options;
  options.mpi_cuda_direct = option;
  return mpi_transport_mode("ProcessGroupMPI 'default' rank 0/2", device, options, library);
}

std::string refusal(Device device, std::optional<bool> option, const char* variable,
                    const mpi::CudaAwareness& library) {
  try {
    mode(device, option, variable, library);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("mpi transport mode: auto follows the library on CUDA, stages the simulated device") {
  for (const char* variable : {static_cast<const char*>(nullptr), "", "auto"}) {
    INFO((variable ? variable : "unset"));
    CHECK(mode(cuda_device(0), std::nullopt, variable, kAware) == TransportMode::kDirect);
    CHECK(mode(cuda_device(1), std::nullopt, variable, kNotAware) == TransportMode::kStaged);
    CHECK(mode(sim_device(0), std::nullopt, variable, kAware) == TransportMode::kStaged);
    CHECK(mode(kCPU, std::nullopt, variable, kAware) == TransportMode::kStaged);
  }
  unsetenv("BRISK_MPI_CUDA_DIRECT");
}

TEST_CASE("mpi transport mode: 0 stages, 1 goes direct; the option wins over the variable") {
  CHECK(mode(cuda_device(0), std::nullopt, "0", kAware) == TransportMode::kStaged);
  CHECK(mode(sim_device(0), std::nullopt, "1", kNotAware) == TransportMode::kDirect);
  CHECK(mode(cuda_device(0), std::nullopt, "1", kAware) == TransportMode::kDirect);
  CHECK(mode(cuda_device(0), false, "1", kAware) == TransportMode::kStaged);
  CHECK(mode(sim_device(0), true, "0", kNotAware) == TransportMode::kDirect);
  // A CPU group's tensors are host memory whatever is asked.
  CHECK(mode(kCPU, true, "1", kNotAware) == TransportMode::kStaged);
  unsetenv("BRISK_MPI_CUDA_DIRECT");
}

TEST_CASE("mpi transport mode: direct on CUDA with a library that is not CUDA-aware is refused, naming what asked") {
  CHECK(refusal(cuda_device(0), std::nullopt, "1", kNotAware) ==
        "ProcessGroupMPI 'default' rank 0/2: BRISK_MPI_CUDA_DIRECT=1 asks MPI to read and write cuda:0 memory "
        "directly, but this MPI library is not CUDA-aware: MPIX_Query_cuda_support() returned 0. Stage CUDA tensors "
        "through host memory instead (BRISK_MPI_CUDA_DIRECT=0 or auto, or unset it), or use an MPI built with CUDA "
        "support (docs/cluster.md)");
  const std::string from_option = refusal(cuda_device(1), true, nullptr, kNotAware);
  CHECK(from_option.find("ProcessGroupOptions::mpi_cuda_direct = true asks MPI to read and write cuda:1 memory "
                         "directly, but this MPI library is not CUDA-aware: MPIX_Query_cuda_support() returned 0") !=
        std::string::npos);
  unsetenv("BRISK_MPI_CUDA_DIRECT");
}

TEST_CASE("mpi transport mode: a value of BRISK_MPI_CUDA_DIRECT other than 1, 0 or auto is refused, even for the CPU") {
  CHECK(refusal(kCPU, std::nullopt, "yes", kAware).rfind("BRISK_MPI_CUDA_DIRECT='yes' is not 1, 0 or auto", 0) == 0);
  CHECK(refusal(sim_device(0), std::nullopt, "true", kAware).rfind("BRISK_MPI_CUDA_DIRECT='true' is not", 0) == 0);
  unsetenv("BRISK_MPI_CUDA_DIRECT");
}
