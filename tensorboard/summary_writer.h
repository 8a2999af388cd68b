#pragma once
// Scalars for TensorBoard, as torch.utils.tensorboard.SummaryWriter writes them: an event file
// in `log_dir` that `tensorboard --logdir` reads while it grows.
//
//   tensorboard::SummaryWriter writer("runs/lenet");
//   writer.add_scalar("train/loss", loss, step);
//   writer.flush();  // now visible to TensorBoard; the destructor flushes too
//
// The file, events.out.tfevents.<seconds>.<host>.<pid>.<n>, is a sequence of TFRecord records
// of TensorBoard's Event messages (docs/training.md, "TensorBoard"); the first holds
// file_version "brain.Event:2", each later one a scalar.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

namespace brisk::tensorboard {

class SummaryWriter {
 public:
  // Creates `log_dir` (and its parents) when missing, and a new event file in it. Raises
  // brisk::Error naming the path when either cannot be created.
  explicit SummaryWriter(const std::string& log_dir);

  // `value` of the series `tag` at `step`, stamped with the current time (TensorBoard keeps
  // float32 values).
  void add_scalar(const std::string& tag, double value, int64_t step);

  // Writes what is buffered to the file. Raises brisk::Error naming it when a write failed.
  void flush();

  const std::string& path() const { return path_; }

 private:
  void write_record(const std::string& data);

  std::string path_;
  std::unique_ptr<FILE, int (*)(FILE*)> file_;
};

}  // namespace brisk::tensorboard
