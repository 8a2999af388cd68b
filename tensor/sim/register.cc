// Makes the simulated device usable: its allocator, backend and graph backend are what
// allocator_for(), backend_for() and graphs::graph_backend_for() return for sim devices, at
// static initialization of any program that links //tensor/sim (an alwayslink library).
#include "tensor/sim/sim_allocator.h"
#include "tensor/sim/sim_backend.h"
#include "tensor/sim/sim_graph.h"

namespace brisk::sim {
namespace {

[[maybe_unused]] const bool registered = [] {
  static SimAllocator allocator;
  static SimBackend backend(cpu_backend());
  register_allocator(DeviceType::Sim, &allocator);
  register_backend(DeviceType::Sim, &backend);
  static SimGraphBackend graph_backend;
  graphs::register_graph_backend(DeviceType::Sim, &graph_backend);
  return true;
}();

}  // namespace
}  // namespace brisk::sim
