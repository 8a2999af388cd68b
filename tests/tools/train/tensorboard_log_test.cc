// The training program's TensorBoard series: the learning rate every step, the loss, accuracy
// and throughput as means over each log interval, the epoch's row against the epoch.
#include "tools/train/tensorboard_log.h"

#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "tests/scratch_files.h"
#include "tests/tensorboard/event_file.h"

using namespace brisk;
using namespace brisk::train;
namespace tb = brisk::tensorboard::testing;

namespace {

// A batch of `count` examples with mean loss `loss` and `correct` right.
MetricSums batch(double loss, int64_t correct, int64_t count) {
  return MetricSums(scalar_tensor(loss * count, kFloat64), scalar_tensor(correct, kInt64), count);
}

}  // namespace

TEST_CASE("TensorBoardLog: lr every step; loss and accuracy over each interval; restarted each epoch") {
  const std::string dir = brisk::testing::scratch_dir("tensorboard_log_steps");
  {
    TensorBoardLog log(dir, /*log_interval=*/2);
    checkpoint::Progress progress;
    MetricSums epoch;
    const double losses[] = {4.0, 2.0, 1.0, 0.5};
    for (int i = 0; i < 4; ++i) {
      epoch.add(batch(losses[i], i, 4));
      ++progress.step;
      log.after_step(progress, epoch, 0.1 / (i + 1));
    }
    // The next epoch's sums start from zero, and so do the interval's.
    log.start_epoch();
    epoch = MetricSums();
    for (int i = 0; i < 2; ++i) {
      epoch.add(batch(3.0, 4, 4));
      ++progress.step;
      log.after_step(progress, epoch, 0.01);
    }
  }
  const std::vector<std::string> files = tb::event_files(dir);
  REQUIRE(files.size() == 1);
  tb::Scalars scalars = tb::read_scalars(files[0]);
  using Points = std::vector<std::pair<int64_t, float>>;
  REQUIRE(scalars["train/lr"] ==
          Points{{1, 0.1f}, {2, 0.05f}, {3, static_cast<float>(0.1 / 3)}, {4, 0.025f}, {5, 0.01f}, {6, 0.01f}});
  REQUIRE(scalars["train/loss"] == Points{{2, 3.0f}, {4, 0.75f}, {6, 3.0f}});
  REQUIRE(scalars["train/accuracy"] == Points{{2, 0.125f}, {4, 0.625f}, {6, 1.0f}});
  REQUIRE(scalars["train/images_per_s"].size() == 3);
  for (const auto& [step, images_per_s] : scalars["train/images_per_s"]) REQUIRE(images_per_s > 0);
}

TEST_CASE("TensorBoardLog: the epoch's row against the epoch, flushed at once") {
  const std::string dir = brisk::testing::scratch_dir("tensorboard_log_epoch");
  TensorBoardLog log(dir, 100);
  EpochRow row;
  row.epoch = 3;
  row.train = Metrics{50.0, 75, 100};
  row.test = Metrics{20.0, 45, 50};
  row.images_per_second = 1234.5;
  row.seconds = 6.25;
  log.after_epoch(row);
  // Read while the writer is open: after_epoch flushed.
  tb::Scalars scalars = tb::read_scalars(tb::event_files(dir).at(0));
  using Points = std::vector<std::pair<int64_t, float>>;
  REQUIRE(scalars.size() == 6);
  REQUIRE(scalars["epoch/train_loss"] == Points{{3, 0.5f}});
  REQUIRE(scalars["epoch/train_accuracy"] == Points{{3, 0.75f}});
  REQUIRE(scalars["epoch/test_loss"] == Points{{3, 0.4f}});
  REQUIRE(scalars["epoch/test_accuracy"] == Points{{3, 0.9f}});
  REQUIRE(scalars["epoch/images_per_s"] == Points{{3, 1234.5f}});
  REQUIRE(scalars["epoch/seconds"] == Points{{3, 6.25f}});
}
