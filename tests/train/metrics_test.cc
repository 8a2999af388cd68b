// train/metrics: sums gathered on a device, read on the host.
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "train/metrics.h"

using namespace brisk;
using namespace brisk::train;

TEST_CASE("MetricSums: sums add up on the device; read() brings them back, means come last") {
  MetricSums a(scalar_tensor(3.0, kFloat32), scalar_tensor(2, kInt64), 4);
  a.add(MetricSums(scalar_tensor(1.0, kFloat64), scalar_tensor(1, kInt64), 4));
  REQUIRE(a.count() == 8);
  REQUIRE(equal(a.packed(), tensor({4.0, 3.0, 8.0}, kFloat64)));
  Metrics m = a.read();
  REQUIRE(m.loss_sum == 4.0);
  REQUIRE(m.correct == 3);
  REQUIRE(m.count == 8);
  REQUIRE(m.loss() == 0.5);
  REQUIRE(m.accuracy() == 0.375);
  REQUIRE(MetricSums().read().count == 0);
  REQUIRE(Metrics{}.loss() == 0.0);
  REQUIRE(Metrics{}.accuracy() == 0.0);
  REQUIRE_THROWS_WITH(MetricSums(zeros({2}), scalar_tensor(1, kInt64), 2),
                      Catch::Contains("expected a loss sum and a correct count of one element"));
  REQUIRE_THROWS_WITH(read_metrics(zeros({3})), Catch::Contains("read_metrics: expected a float64 [3]"));
}
