#include "tools/train/tensorboard_log.h"

#include <algorithm>

namespace brisk::train {

TensorBoardLog::TensorBoardLog(const std::string& log_dir, int64_t log_interval)
    : writer_(log_dir), log_interval_(std::max<int64_t>(1, log_interval)) {
  start_epoch();
}

void TensorBoardLog::start_epoch() {
  last_ = Metrics();
  last_time_ = std::chrono::steady_clock::now();
}

void TensorBoardLog::after_step(const checkpoint::Progress& progress, const MetricSums& epoch, double lr) {
  writer_.add_scalar("train/lr", lr, progress.step);
  if (progress.step % log_interval_ != 0) return;
  const Metrics now = epoch.read();
  const auto time = std::chrono::steady_clock::now();
  Metrics since{now.loss_sum - last_.loss_sum, now.correct - last_.correct, now.count - last_.count};
  const double seconds = std::chrono::duration<double>(time - last_time_).count();
  writer_.add_scalar("train/loss", since.loss(), progress.step);
  writer_.add_scalar("train/accuracy", since.accuracy(), progress.step);
  if (seconds > 0) writer_.add_scalar("train/images_per_s", since.count / seconds, progress.step);
  last_ = now;
  last_time_ = time;
}

void TensorBoardLog::after_epoch(const EpochRow& row) {
  writer_.add_scalar("epoch/train_loss", row.train.loss(), row.epoch);
  writer_.add_scalar("epoch/train_accuracy", row.train.accuracy(), row.epoch);
  writer_.add_scalar("epoch/test_loss", row.test.loss(), row.epoch);
  writer_.add_scalar("epoch/test_accuracy", row.test.accuracy(), row.epoch);
  writer_.add_scalar("epoch/images_per_s", row.images_per_second, row.epoch);
  writer_.add_scalar("epoch/seconds", row.seconds, row.epoch);
  writer_.flush();
}

}  // namespace brisk::train
