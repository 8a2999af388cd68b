#pragma once
// What the training program writes for TensorBoard (--tensorboard DIR, rank 0 only), in the
// series a PyTorch training script would log:
//
//   against the optimizer step (checkpoint::Progress::step)
//     train/lr                            every step: the first parameter group's after the
//                                         step (the scheduler's, for the next step)
//     train/loss, train/accuracy,         every log_interval steps: the means over the steps
//     train/images_per_s                  since the last point (rank 0's share when distributed)
//   against the epoch (counted from 1), the CSV's row (metrics_csv.h)
//     epoch/train_loss, epoch/train_accuracy, epoch/test_loss, epoch/test_accuracy,
//     epoch/images_per_s, epoch/seconds
//
// A point of train/loss reads the metrics from the device (MetricSums::read), as the progress
// log does at the same interval: the steps between points never wait for the device.
#include <chrono>
#include <cstdint>
#include <string>

#include "checkpoint/checkpoint.h"
#include "tensorboard/summary_writer.h"
#include "tools/train/metrics_csv.h"
#include "train/metrics.h"

namespace brisk::train {

class TensorBoardLog {
 public:
  TensorBoardLog(const std::string& log_dir, int64_t log_interval);

  // Before an epoch's first step: the next point's means start here.
  void start_epoch();
  // After a step, with the progress and the epoch's metrics so far (train_epoch's StepCallback)
  // and the optimizer's learning rate.
  void after_step(const checkpoint::Progress& progress, const MetricSums& epoch, double lr);
  // After an epoch's evaluation; flushes the file, so TensorBoard shows the epoch.
  void after_epoch(const EpochRow& row);

 private:
  tensorboard::SummaryWriter writer_;
  int64_t log_interval_;
  Metrics last_;  // the epoch's sums at the last point
  std::chrono::steady_clock::time_point last_time_;
};

}  // namespace brisk::train
