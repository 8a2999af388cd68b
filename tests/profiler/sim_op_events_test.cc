// A profiled op on the simulated device is one op event, as on any device: the simulated
// device runs the CPU's kernels, and it must reach them without passing the profiler's hook
// (backend_for) a second time.
#include <catch2/catch.hpp>

#include "profiler/profiler.h"
#include "tensor/native/ops.h"

namespace brisk::profiler {
namespace {

std::vector<Event> events_named(const std::vector<Event>& events, const std::string& name) {
  std::vector<Event> out;
  for (const Event& e : events) {
    if (e.name == name) out.push_back(e);
  }
  return out;
}

TEST_CASE("an op on the simulated device is recorded once, with its sim operands") {
  const Device sim0 = sim_device(0);
  Tensor a = native::ones({2, 3}, sim0), b = native::ones({2, 3}, sim0);

  Profiler prof;
  prof.start();
  Tensor c = native::binary(BinaryOp::Add, a, b);
  Tensor s = native::reduce(ReduceOp::Sum, c, {0, 1}, false);
  prof.stop();

  for (const char* op : {"add", "sum"}) {
    INFO(op);
    std::vector<Event> recorded = events_named(prof.events(), op);
    REQUIRE(recorded.size() == 1);
    bool on_sim = false;
    for (const auto& [key, value] : recorded[0].args) on_sim = on_sim || (key == "device" && value == "sim:0");
    CHECK(on_sim);
  }
}

}  // namespace
}  // namespace brisk::profiler
