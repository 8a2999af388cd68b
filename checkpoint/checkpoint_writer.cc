#include "checkpoint/checkpoint_writer.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <utility>
#include <vector>

#include "autograd/grad_mode.h"
#include "checkpoint/save_pattern.h"
#include "tensor/error.h"

namespace brisk::checkpoint {
namespace {

// A copy in host memory of a tensor that training goes on changing.
Tensor host_copy(const Tensor& t) { return t.is_cpu() ? t.detach().clone() : t.detach().to(kCPU); }

// `checkpoint` with copies of its tensors.
Checkpoint snapshot(const Checkpoint& checkpoint) {
  autograd::NoGradGuard no_grad;
  Checkpoint out = checkpoint;
  out.model = nn::StateDict();
  for (const auto& [name, tensor] : checkpoint.model) out.model.insert(name, host_copy(tensor));
  for (auto& [name, tensor] : out.optimizer.tensors) tensor = host_copy(tensor);
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

CheckpointWriter::CheckpointWriter(std::string pattern, CheckpointWriterOptions options)
    : pattern_(std::move(pattern)), options_(std::move(options)) {
  const Placeholder placeholder = save_pattern_placeholder(pattern_);
  BRISK_CHECK(options_.keep_last() >= 0, "CheckpointWriter '{}': keep_last must be 0 (all) or more, got {}", pattern_,
              options_.keep_last());
  BRISK_CHECK(options_.keep_last() == 0 || placeholder != Placeholder::kNone,
              "CheckpointWriter '{}': keep_last {} needs a pattern that names several files ({{step}} or {{epoch}} in "
              "it); this one names one file, which each checkpoint replaces",
              pattern_, options_.keep_last());
}

CheckpointWriter::~CheckpointWriter() {
  try {
    wait();
  } catch (const std::exception& e) {
    log(std::string("checkpoint write failed: ") + e.what());
  }
}

std::string CheckpointWriter::save(const Checkpoint& checkpoint) {
  wait();
  const std::string path = checkpoint_path(pattern_, checkpoint.progress);
  const auto start = std::chrono::steady_clock::now();
  Checkpoint copy = snapshot(checkpoint);
  const double copy_seconds = seconds_since(start);
  thread_ = std::thread([this, copy = std::move(copy), path, copy_seconds] {
    try {
      write(copy, path, copy_seconds);
    } catch (...) {
      error_ = std::current_exception();
    }
  });
  return path;
}

void CheckpointWriter::wait() {
  if (thread_.joinable()) thread_.join();
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void CheckpointWriter::write(const Checkpoint& snapshot, const std::string& path, double copy_seconds) {
  for (const std::string& removed : remove_stale_checkpoint_temporaries(pattern_)) {
    log("removed " + removed + ", a temporary file that a killed checkpoint write left behind");
  }
  const auto start = std::chrono::steady_clock::now();
  save_checkpoint(path, snapshot);
  log(fmt::format("saved {} (step {}: copied in {:.1f} ms on the training thread, written in the background in "
                  "{:.1f} ms)",
                  path, snapshot.progress.step, 1e3 * copy_seconds, 1e3 * seconds_since(start)));
  if (options_.keep_last() == 0) return;
  std::vector<std::string> all = list_checkpoints(pattern_);
  const size_t keep = static_cast<size_t>(options_.keep_last());
  for (size_t i = 0; i + keep < all.size(); ++i) {
    if (all[i] == path) continue;
    BRISK_CHECK(::unlink(all[i].c_str()) == 0 || errno == ENOENT, "removing the old checkpoint '{}' failed: {}", all[i],
                std::strerror(errno));
    log("removed " + all[i] + ", an older checkpoint than the last " + std::to_string(keep));
  }
}

void CheckpointWriter::log(const std::string& line) const {
  if (options_.log()) options_.log()(line);
}

}  // namespace brisk::checkpoint
