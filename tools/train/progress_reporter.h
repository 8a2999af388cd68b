#pragma once
// Shows how an epoch is going: on a terminal, a progress bar on stderr redrawn in place
//
//   epoch 1/2 [=========>          ] 412/938  loss 0.5123  acc 81.2%  3512 img/s  ETA 0:15
//
// and otherwise (a log file, CI) a log line through spdlog every `log_interval` batches:
//
//   epoch 1/2 batch 400/938  loss 0.5123  acc 81.2%  3512 img/s
//
// Loss and accuracy are the means over the epoch so far; images/s counts from construction.
// The metrics are read from the device (MetricSums::read, a synchronization) only for a line
// or a redraw: every `log_interval` batches, at most every 100 ms for the bar, and at the
// epoch's last batch.
#include <chrono>
#include <cstdint>
#include <string>

#include "train/metrics.h"

namespace brisk::train {

class ProgressReporter {
 public:
  // `batches`: the epoch's batch count; `first_batch`: where this run starts in it (after
  // a resume). `bar`: draw a bar (true when stderr is a terminal, see stderr_is_terminal).
  ProgressReporter(std::string title, int64_t batches, int64_t first_batch, int64_t log_interval, bool bar);

  // After batch `batch` (counted from 1) with the epoch's metrics so far.
  void update(int64_t batch, const MetricSums& epoch);
  // Ends the bar's line.
  void finish();

  // Images per second since construction.
  double images_per_second(int64_t images) const;

 private:
  std::string status(const Metrics& epoch) const;

  std::string title_;
  int64_t batches_;
  int64_t first_batch_;
  int64_t log_interval_;
  bool bar_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  bool drawn_ = false;
};

bool stderr_is_terminal();

}  // namespace brisk::train
