// make_synthetic_cifar10: writes a synthetic, learnable dataset in CIFAR-10's binary format
// (tools/data/synthetic_cifar10.h) for demos and tests of the training program on CIFAR-format
// data; it is not CIFAR-10 (docs/training.md says how to get the real one).
//
//   bazel run //tools/data:make_synthetic_cifar10 -- --output-dir data/synthetic-cifar10
//   bazel run -c opt //tools/train:train -- --dataset cifar10 --data-dir data/synthetic-cifar10 --model resnet20
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "tensor/error.h"
#include "tools/data/synthetic_cifar10.h"
#include "tools/train/resolve_path.h"

int main(int argc, char** argv) {
  std::string dir;
  brisk::tools::SyntheticCifar10Options options;
  CLI::App app{"Writes a synthetic, learnable dataset in CIFAR-10's binary format (not CIFAR-10)."};
  app.option_defaults()->always_capture_default();
  app.add_option("--output-dir", dir, "directory to write data_batch_1..5.bin, test_batch.bin, batches.meta.txt into")
      ->required();
  app.add_option("--train-size", options.train_size, "training images, over the five data_batch files");
  app.add_option("--test-size", options.test_size, "test images");
  app.add_option("--noise", options.noise, "half-width of the uniform pixel noise (levels of 0-255)");
  app.add_option("--seed", options.seed, "seed of the labels, shifts and noise");
  CLI11_PARSE(app, argc, argv);
  try {
    const std::string path = brisk::train::resolve_path(dir);
    brisk::tools::write_synthetic_cifar10(path, options);
    spdlog::info("wrote {} training and {} test images (synthetic, CIFAR-10 format) to {}", options.train_size,
                 options.test_size, path);
    return 0;
  } catch (const brisk::Error& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
}
