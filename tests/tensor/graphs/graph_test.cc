// Graphs (tensor/graphs/graph.h) on the simulated device, and in the gpu-tagged twin on
// cuda:0: replay recomputes the captured work from the static inputs' new values; memory the
// graph writes stays its own; the states are checked; what cannot be captured (host synchronizations, copies from the
// host, random numbers) is refused with an error that says so, and the capture is then discarded.
#include "tensor/graphs/graph.h"

#include <catch2/catch.hpp>
#include <vector>

#include "tensor/generator.h"
#include "tensor/graphs/capture_state.h"
#include "tensor/native/ops.h"
#include "tensor/tensor.h"

namespace brisk::graphs {
namespace {

using Catch::Matchers::Contains;

Device graph_device() {
#if defined(BRISK_TEST_DEVICE_CUDA)
  return cuda_device(0);
#else
  return sim_device(0);
#endif
}

Tensor on_device(const std::vector<float>& values) {
  return native::from_vector(values, {static_cast<int64_t>(values.size())}, TensorOptions(kFloat32)).to(graph_device());
}

std::vector<float> values(const Tensor& t) { return t.to(kCPU).to_vector<float>(); }

}  // namespace

TEST_CASE("replay recomputes the captured work from the static input's current values") {
  Tensor x = on_device({1, 2, 3});
  Graph graph(graph_device());
  Tensor y;
  {
    GraphCapture capture(graph);
    y = (x * 2.0 + 1.0).relu();
  }
  CHECK(graph.is_captured());
  CHECK(graph.pool().id != 0);
  graph.replay();
  CHECK(values(y) == std::vector<float>{3, 5, 7});
  x.copy_(on_device({-4, 0, 10}));
  graph.replay();
  CHECK(values(y) == std::vector<float>{0, 1, 21});
}

TEST_CASE("in-place updates captured once are applied at every replay") {
  Tensor acc = on_device({0, 0});
  Tensor step = on_device({1, 2});
  Graph graph(graph_device());
  graph.capture_begin();
  acc.add_(step);
  graph.capture_end();
  CHECK(values(acc) == std::vector<float>{0, 0});  // capture records, it does not run
  for (int i = 0; i < 3; ++i) graph.replay();
  CHECK(values(acc) == std::vector<float>{3, 6});
}

TEST_CASE("graphs sharing a pool replay in the order they were captured") {
  MempoolId pool = graph_pool_handle();
  Tensor x = on_device({1, 2});
  Graph first(graph_device()), second(graph_device());
  Tensor y, z;
  {
    GraphCapture capture(first, pool);
    y = x * 3.0;
  }
  {
    GraphCapture capture(second, pool);
    z = y + 1.0;
  }
  CHECK(first.pool() == pool);
  CHECK(second.pool() == pool);
  first.replay();
  second.replay();
  CHECK(values(z) == std::vector<float>{4, 7});
}

TEST_CASE("memory a graph writes is not handed out to eager work while the graph lives") {
  Tensor x = on_device({1, 2, 3, 4});
  Graph graph(graph_device());
  Tensor out;
  {
    GraphCapture capture(graph);
    Tensor temporary = x * 10.0;  // freed by the captured code; every replay writes it
    out = temporary + 1.0;
  }
  // Eager tensors of the temporary's size made now must not share its memory.
  std::vector<Tensor> eager;
  for (int i = 0; i < 8; ++i) eager.push_back(on_device({-1, -1, -1, -1}));
  graph.replay();
  for (const Tensor& t : eager) CHECK(values(t) == std::vector<float>{-1, -1, -1, -1});
  CHECK(values(out) == std::vector<float>{11, 21, 31, 41});
}

TEST_CASE("a graph replays only between capture_end and reset") {
  Graph graph(graph_device());
  CHECK_THROWS_WITH(graph.replay(), Contains("holds no capture"));
  graph.capture_begin();
  CHECK_THROWS_WITH(graph.replay(), Contains("still capturing (call capture_end before replay)"));
  CHECK_THROWS_WITH(graph.capture_begin(), Contains("is capturing already"));
  Graph other(graph_device());
  CHECK_THROWS_WITH(other.capture_begin(), Contains("is being captured by another graph"));
  graph.capture_end();
  CHECK_THROWS_WITH(graph.capture_begin(), Contains("holds a capture; reset() it"));
  CHECK_THROWS_WITH(graph.capture_end(), Contains("is not capturing"));
  graph.reset();
  CHECK_THROWS_WITH(graph.replay(), Contains("holds no capture"));
  CHECK_THROWS_WITH(Graph(kCPU), Contains("not of the cpu"));
}

TEST_CASE("host synchronizations during capture are refused, and the capture is discarded") {
  Tensor x = on_device({1, 2});
  Graph graph(graph_device());
  SECTION("item()") {
    auto capture_item = [&] {
      GraphCapture capture(graph);
      (void)x.sum().item<float>();
    };
    CHECK_THROWS_WITH(capture_item(), Contains("copy_ to the host (item(), to_vector(), .to(kCPU))") &&
                                          Contains("during graph capture") && Contains(graph_device().str()));
  }
  SECTION(".to(kCPU)") {
    auto capture_to_host = [&] {
      GraphCapture capture(graph);
      (void)(x * 2.0).to(kCPU);
    };
    CHECK_THROWS_WITH(capture_to_host(), Contains("read results after replay()"));
  }
  SECTION("a copy from the host") {
    auto capture_from_host = [&] {
      GraphCapture capture(graph);
      x.copy_(native::from_vector(std::vector<float>{5, 6}, {2}, TensorOptions(kFloat32)));
    };
    CHECK_THROWS_WITH(capture_from_host(), Contains("copy_ from the host") && Contains("as it was at capture"));
  }
  CHECK_FALSE(graph.is_capturing());
  CHECK_FALSE(graph.is_captured());
  CHECK_FALSE(is_capturing(graph_device()));
  CHECK(values(x * 2.0) == std::vector<float>{2, 4});  // eager work runs again
}

TEST_CASE("random numbers during capture are refused: every replay would draw the same") {
  Tensor x = on_device({1, 2, 3});
  Graph graph(graph_device());
  auto capture_random = [&] {
    GraphCapture capture(graph);
    x.uniform_(0.0, 1.0);
  };
  CHECK_THROWS_WITH(capture_random(), Contains("during graph capture") && Contains("seed and offset"));
  CHECK_FALSE(graph.is_captured());
}

}  // namespace brisk::graphs
