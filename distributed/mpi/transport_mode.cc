#include "distributed/mpi/transport_mode.h"

#include <cstdlib>
#include <optional>

#include "tensor/error.h"

namespace brisk::dist {
namespace {

constexpr const char* kVariable = "BRISK_MPI_CUDA_DIRECT";

// What was asked for (true: direct, false: staged, unset: auto) and where it was read.
struct Request {
  std::optional<bool> direct;
  std::string source;  // "BRISK_MPI_CUDA_DIRECT=1", for messages
};

Request read_request(const ProcessGroupOptions& options) {
  if (options.mpi_cuda_direct) {
    return {options.mpi_cuda_direct,
            fmt::format("ProcessGroupOptions::mpi_cuda_direct = {}", *options.mpi_cuda_direct)};
  }
  const char* value = std::getenv(kVariable);
  const std::string text = value != nullptr ? value : "";
  const std::string source = fmt::format("{}={}", kVariable, text);
  if (text.empty() || text == "auto") return {std::nullopt, source};
  if (text == "1") return {true, source};
  if (text == "0") return {false, source};
  BRISK_FAIL("{}='{}' is not 1, 0 or auto (whether ProcessGroupMPI passes device pointers to MPI, which needs a "
             "CUDA-aware MPI library, or stages tensors through host memory: docs/cluster.md)",
             kVariable, text);
}

}  // namespace

TransportMode mpi_transport_mode(const std::string& where, Device device, const ProcessGroupOptions& options,
                                 const mpi::CudaAwareness& library) {
  const Request request = read_request(options);
  if (device.is_cpu()) return TransportMode::kStaged;
  if (!request.direct) return device.is_cuda() && library.aware ? TransportMode::kDirect : TransportMode::kStaged;
  if (!*request.direct) return TransportMode::kStaged;
  BRISK_CHECK(!device.is_cuda() || library.aware,
              "{}: {} asks MPI to read and write {} memory directly, but this MPI library is not CUDA-aware: {}. "
              "Stage CUDA tensors through host memory instead ({}=0 or auto, or unset it), or use an MPI built with "
              "CUDA support (docs/cluster.md)",
              where, request.source, device, library.answer, kVariable);
  return TransportMode::kDirect;
}

}  // namespace brisk::dist
