// Makes the simulated device usable: its allocator and backend are what allocator_for() and
// backend_for() return for sim devices, at static initialization of any program that links
// //tensor/sim (an alwayslink library).
#include "tensor/sim/sim_allocator.h"
#include "tensor/sim/sim_backend.h"

namespace brisk::sim {
namespace {

[[maybe_unused]] const bool registered = [] {
  static SimAllocator allocator;
  static SimBackend backend(cpu_backend());
  register_allocator(DeviceType::Sim, &allocator);
  register_backend(DeviceType::Sim, &backend);
  return true;
}();

}  // namespace
}  // namespace brisk::sim
