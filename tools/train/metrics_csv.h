#pragma once
// The per-epoch metrics of a run as CSV, one row per epoch, flushed as each is written:
//
//   epoch,train_loss,train_acc,test_loss,test_acc,images_per_s,seconds
//   1,0.612345,0.775117,0.452101,0.8361,3512.4,18.21
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "train/metrics.h"

namespace brisk::train {

struct EpochRow {
  int64_t epoch = 0;  // counted from 1
  Metrics train;
  Metrics test;
  double images_per_second = 0.0;  // training throughput
  double seconds = 0.0;            // the epoch's wall time, evaluation included
};

class MetricsCsv {
 public:
  // Creates `path` with the header line, or with `append` (a resumed run) adds to the rows
  // already there (writing the header only when the file is new or empty), after removing
  // those of epochs after `completed_epochs`: a run stopped between writing an epoch's row and
  // its checkpoint, resumed from the checkpoint before, writes that epoch's row again. Raises
  // brisk::Error naming the path when it cannot be opened.
  MetricsCsv(const std::string& path, bool append, int64_t completed_epochs = INT64_MAX);

  void write(const EpochRow& row);

  static constexpr const char* kHeader = "epoch,train_loss,train_acc,test_loss,test_acc,images_per_s,seconds";

 private:
  std::string path_;
  std::unique_ptr<FILE, int (*)(FILE*)> file_;
};

}  // namespace brisk::train
