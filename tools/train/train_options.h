#pragma once
// The settings of train_mnist and their command-line flags.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace brisk::train {

struct TrainOptions {
  std::string data_dir = "/usr/share/datasets/fashion-mnist";
  std::string model = "lenet";
  int64_t epochs = 2;
  int64_t batch_size = 64;  // global: in distributed training, split over the processes
  double lr = 0.05;
  double momentum = 0.9;
  std::string lr_schedule = "cosine";  // or "constant"
  double label_smoothing = 0.0;        // of the training loss
  uint64_t seed = 0;
  std::string device = "auto";  // see resolve_device (tools/train/distributed_run.h)
  std::string save;             // checkpoint written after every epoch ("{epoch}" in it: its number); empty: none
  std::string resume;           // checkpoint to continue from; empty: start afresh
  int64_t log_interval = 100;
  std::string metrics_csv = "metrics.csv";
  bool plot = true;         // the CSV drawn as a PNG next to it (metrics.png), rewritten every epoch
  int64_t train_limit = 0;  // first N training examples only; 0: all
  int64_t test_limit = 0;
  int workers = 0;  // data loader threads
  int threads = 0;  // CPU threads of the kernels; 0: OpenMP's default
  // "": distributed when the launcher started several processes (WORLD_SIZE > 1); "auto",
  // "gloo", "nccl": distributed whatever WORLD_SIZE (auto: nccl on CUDA, gloo on the CPU).
  std::string dist_backend;
};

// Registers every flag of TrainOptions on `app`, writing into `options`. A flag given twice
// takes its last value.
void add_train_flags(CLI::App& app, TrainOptions& options);

// Relative paths are taken from the directory `bazel run` was started in (Bazel runs the
// program inside its runfiles tree and names the caller's directory in
// BUILD_WORKING_DIRECTORY); unchanged outside `bazel run`.
std::string resolve_path(const std::string& path);

}  // namespace brisk::train
