#pragma once
// Writing checkpoints in the background, so that a run can checkpoint every few steps without
// waiting for the disk:
//
//   checkpoint::CheckpointWriter writer("runs/a/ckpt-{step}.safetensors",
//                                       checkpoint::CheckpointWriterOptions().keep_last(3).log(log_line));
//   // every K steps, on the training thread:
//   writer.save(checkpoint::capture(*model, optimizer, progress, data_seed, &scheduler));
//   // at the end:
//   writer.wait();
//
// save() copies the tensors to host memory on the calling thread, so that training may change
// them as soon as it returns; a background thread writes the copy with save_checkpoint. Before
// each write the pattern's stale temporary files are removed; after it, all but the newest
// keep_last checkpoints of the pattern.
#include <exception>
#include <functional>
#include <string>
#include <thread>

#include "checkpoint/checkpoint.h"
#include "tensor/arg.h"

namespace brisk::checkpoint {

struct CheckpointWriterOptions {
  // How many of the pattern's checkpoints to keep, the newest (checkpoint/save_pattern.h); 0:
  // all. The file just written is never removed.
  BRISK_ARG(int64_t, keep_last) = 0;
  // Called, on the background thread, with a line for each file written or removed.
  BRISK_ARG(std::function<void(const std::string& line)>, log) = nullptr;
};

class CheckpointWriter {
 public:
  // Raises brisk::Error when `pattern` is not a save pattern (save_pattern_placeholder) or keep_last is
  // negative or set for a pattern that names only one file.
  explicit CheckpointWriter(std::string pattern, CheckpointWriterOptions options = {});
  // Waits for the write in flight; its error, if any, goes to the log (a destructor cannot
  // raise it): call wait() to see it.
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  // Waits for the previous write (raising its error), copies `checkpoint` and starts writing the
  // copy to checkpoint_path(pattern, checkpoint.progress). Returns that path.
  std::string save(const Checkpoint& checkpoint);
  // Waits for the write in flight, if any; raises brisk::Error when it failed.
  void wait();

  const std::string& pattern() const { return pattern_; }

 private:
  // `copy_seconds`: how long save() took to copy it, for the log.
  void write(const Checkpoint& snapshot, const std::string& path, double copy_seconds);
  void log(const std::string& line) const;

  std::string pattern_;
  CheckpointWriterOptions options_;
  std::thread thread_;
  std::exception_ptr error_;  // the failed write's, set by the thread and read after joining it
};

}  // namespace brisk::checkpoint
