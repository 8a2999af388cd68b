#include "tools/train/train_options.h"

#include <cstdlib>

#include "tensor/device.h"
#include "tensor/error.h"

namespace brisk::train {
namespace {

// "auto" or a device string (tensor/device.h): CLI11 reports the message of a bad one.
std::string check_device_flag(const std::string& flag) {
  if (flag == "auto") return "";
  try {
    static_cast<void>(Device(flag));
    return "";
  } catch (const Error& e) {
    return fmt::format("{} (or 'auto')", e.what());
  }
}

}  // namespace

void add_train_flags(CLI::App& app, TrainOptions& o) {
  // A flag given twice takes its last value, so that a wrapper's defaults can be overridden
  // (tools/main_job.sh --epochs 1).
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--data-dir", o.data_dir, "directory of the MNIST-format IDX files (.gz or not)")
      ->capture_default_str();
  app.add_option("--model", o.model, "model to train")->check(CLI::IsMember({"lenet", "mlp"}))->capture_default_str();
  app.add_option("--epochs", o.epochs, "epochs to train (in total, counting those of a resumed checkpoint)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--batch-size", o.batch_size, "examples per optimizer step (global)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--lr", o.lr, "SGD learning rate")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--momentum", o.momentum, "SGD momentum")->check(CLI::Range(0.0, 1.0))->capture_default_str();
  app.add_option("--lr-schedule", o.lr_schedule, "cosine: from --lr down to 0 over all epochs, step by step")
      ->check(CLI::IsMember({"cosine", "constant"}))
      ->capture_default_str();
  app.add_option("--label-smoothing", o.label_smoothing, "label smoothing of the training loss (cross_entropy's)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the weights and of the data order")->capture_default_str();
  app.add_option("--device", o.device,
                 "cpu, cuda, cuda:N, sim or sim:N (the simulated device, for tests); auto: cuda when a GPU is "
                 "visible, else cpu. Distributed, cuda and sim take the process's LOCAL_RANK as N")
      ->check(CLI::Validator(check_device_flag, "DEVICE"))
      ->capture_default_str();
  app.add_option("--save", o.save,
                 "checkpoint file to write (atomically) after every epoch; {epoch} in the name keeps one per epoch");
  app.add_option("--resume", o.resume, "checkpoint file to continue training from");
  app.add_option("--log-interval", o.log_interval, "batches between progress log lines (when stderr is no terminal)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--metrics-csv", o.metrics_csv, "per-epoch metrics file (appended to when resuming)")
      ->capture_default_str();
  app.add_flag("--plot,!--no-plot", o.plot,
               "draw the per-epoch metrics as a PNG next to the CSV (its name with .png) after every epoch "
               "(default: on)");
  app.add_option("--train-limit", o.train_limit, "train on the first N examples only (0: all)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--test-limit", o.test_limit, "evaluate on the first N test examples only (0: all)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--workers", o.workers, "data loader threads")->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--dist-backend", o.dist_backend,
                 "train distributed (DDP) over this backend; auto: nccl for CUDA devices, gloo otherwise "
                 "(default: distributed when started by the launcher with WORLD_SIZE > 1)")
      ->check(CLI::IsMember({"auto", "gloo", "nccl"}));
  app.add_option("--threads", o.threads, "CPU kernel threads (0: OpenMP's default)")->check(CLI::NonNegativeNumber);
}

std::string resolve_path(const std::string& path) {
  const char* caller_dir = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path[0] == '/' || caller_dir == nullptr) return path;
  return std::string(caller_dir) + "/" + path;
}

}  // namespace brisk::train
