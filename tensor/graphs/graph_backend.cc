#include "tensor/graphs/graph_backend.h"

#include <array>

#include "tensor/error.h"

namespace brisk::graphs {
namespace {

// By DeviceType; the CPU's stays empty (the host's work is not captured).
std::array<GraphBackend*, 3> registered{};

}  // namespace

GraphBackend& graph_backend_for(Device device) {
  GraphBackend* backend = registered[static_cast<size_t>(device.type)];
  BRISK_CHECK(backend != nullptr, "graphs of {}: this program does not link {}", device,
              device.is_cuda()  ? "Brisk's CUDA runtime (depend on //cuda)"
              : device.is_sim() ? "the simulated device (depend on //tensor/sim)"
                                : "a device whose work can be captured (CUDA or the simulated device)");
  return *backend;
}

void register_graph_backend(DeviceType type, GraphBackend* backend) {
  BRISK_CHECK(type != DeviceType::CPU, "register_graph_backend: the host's work is not captured");
  registered[static_cast<size_t>(type)] = backend;
}

}  // namespace brisk::graphs
