// tools/train/progress_reporter: the epoch's metrics, kept on the device, are read only for
// the lines it prints (every log_interval batches and at the epoch's last).
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "autograd/ops.h"
#include "tensor/sim/sim_backend.h"
#include "tools/train/progress_reporter.h"

using namespace brisk;
using namespace brisk::train;

TEST_CASE("ProgressReporter: reads the metrics from the device only for the lines it logs") {
  const Device sim = sim_device(0);
  ProgressReporter reporter("epoch 1/1", /*batches=*/7, /*first_batch=*/0, /*log_interval=*/3, /*bar=*/false);
  MetricSums epoch(sim);
  std::vector<int64_t> read_at;
  for (int64_t batch = 1; batch <= 7; ++batch) {
    epoch.add(MetricSums(scalar_tensor(0.5, TensorOptions(kFloat32).device(sim)),
                         scalar_tensor(1, TensorOptions(kInt64).device(sim)), 2));
    const uint64_t before = sim::copy_counts().device_to_host;
    reporter.update(batch, epoch);
    if (sim::copy_counts().device_to_host != before) read_at.push_back(batch);
  }
  reporter.finish();
  CHECK(read_at == std::vector<int64_t>{3, 6, 7});
}
