// Graphs on the simulated device (tensor/sim/sim_graph.h): replay runs the recorded kernels
// without dispatching ops; a capture takes one device's work only; a pool is one device's.
#include "tensor/sim/sim_graph.h"

#include <catch2/catch.hpp>
#include <vector>

#include "tensor/graphs/graph.h"
#include "tensor/native/ops.h"
#include "tensor/tensor.h"

namespace brisk::sim {
namespace {

using Catch::Matchers::Contains;
using graphs::Graph;
using graphs::GraphCapture;

const Device sim0 = sim_device(0);
const Device sim1 = sim_device(1);

Tensor on(Device device, const std::vector<float>& values) {
  return native::from_vector(values, {static_cast<int64_t>(values.size())}, TensorOptions(kFloat32)).to(device);
}

}  // namespace

TEST_CASE("sim: replay runs the recorded kernels, dispatching none") {
  Tensor x = on(sim0, {1, 2, 3});
  reset_kernel_counts();
  Tensor eager = (x * 2.0 + 1.0).exp().sum();
  const uint64_t eager_kernels = kernel_counts().run;
  REQUIRE(eager_kernels > 0);

  Graph graph(sim0);
  Tensor captured;
  reset_kernel_counts();
  {
    GraphCapture capture(graph);
    captured = (x * 2.0 + 1.0).exp().sum();
  }
  CHECK(kernel_counts().recorded == eager_kernels);
  CHECK(kernel_counts().run == 0);
  for (int i = 0; i < 4; ++i) graph.replay();
  CHECK(kernel_counts().replayed == 4 * eager_kernels);
  CHECK(kernel_counts().run == 0);
  CHECK(captured.item<float>() == eager.item<float>());
}

TEST_CASE("sim: a capture refuses another simulated device's work") {
  Tensor a = on(sim0, {1, 2});
  Tensor b = on(sim1, {3, 4});
  Graph graph(sim0);
  auto capture_other_device = [&] {
    GraphCapture capture(graph);
    (void)(a * 2.0);
    (void)(b * 2.0);
  };
  CHECK_THROWS_WITH(capture_other_device(),
                    Contains("on sim:1 during the graph capture of sim:0") && Contains("its own device only"));
  CHECK_FALSE(graph.is_captured());
  auto capture_transfer = [&] {
    GraphCapture capture(graph);
    a.copy_(b);
  };
  CHECK_THROWS_WITH(capture_transfer(), Contains("copy_ from another simulated device on sim:0 during graph capture"));
  Graph other(sim1);
  graph.capture_begin();
  CHECK_THROWS_WITH(other.capture_begin(), Contains("sim:0 is being captured"));
  graph.capture_end();
}

TEST_CASE("sim: a pool holds one device's memory") {
  graphs::MempoolId pool = graphs::graph_pool_handle();
  Graph first(sim0), second(sim1);
  first.capture_begin(pool);
  first.capture_end();
  CHECK_THROWS_WITH(second.capture_begin(pool),
                    Contains("pool " + std::to_string(pool.id) + " holds memory of sim:0's graphs") &&
                        Contains("a graph of sim:1 cannot share it"));
  CHECK_FALSE(second.is_capturing());
}

}  // namespace brisk::sim
