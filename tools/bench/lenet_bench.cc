// Training throughput of models::LeNet5 in images per second. One training step is forward,
// cross_entropy, backward, SGD (lr 0.01, momentum 0.9) step and zero_grad, on a fixed batch
// of random 1x28x28 images and random labels. After warm-up steps, each of `repeats` samples
// times `steps` steps; prints, per batch size,
//
//   lenet_b<batch> <median images/s> <min images/s> <max images/s>
//
// for tools/bench/run_lenet_bench.sh, which runs the PyTorch twin (lenet_bench_torch.py)
// with the same arguments, interleaved, and compares.
//
//   lenet_bench --threads 2 [--device cpu|cuda] [--batches 64,256] [--warmup 5] [--repeats 15]
//               [--steps 4]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "cuda/device.h"
#include "models/lenet.h"
#include "nn/functional.h"
#include "optim/sgd.h"
#include "tensor/parallel.h"

namespace {

using brisk::Tensor;

struct Args {
  int threads = brisk::get_num_threads();
  std::string device = "cpu";
  std::vector<int64_t> batches{64, 256};
  int warmup = 5, repeats = 15, steps = 4;
};

std::vector<int64_t> parse_list(const std::string& text) {
  std::vector<int64_t> values;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) values.push_back(std::stoll(item));
  return values;
}

Args parse_args(int argc, char** argv) {
  Args args;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--threads") {
      args.threads = std::stoi(value);
    } else if (flag == "--device") {
      args.device = value;
    } else if (flag == "--batches") {
      args.batches = parse_list(value);
    } else if (flag == "--warmup") {
      args.warmup = std::stoi(value);
    } else if (flag == "--repeats") {
      args.repeats = std::stoi(value);
    } else if (flag == "--steps") {
      args.steps = std::stoi(value);
    } else {
      std::fprintf(stderr, "lenet_bench: unknown flag %s\n", flag.c_str());
      std::exit(2);
    }
  }
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  Args args = parse_args(argc, argv);
  brisk::set_num_threads(args.threads);
  brisk::manual_seed(0);
  brisk::Device device(args.device);
  if (device.is_cuda()) brisk::cuda::check_device(device.index);
  auto sync = [&] {
    if (device.is_cuda()) brisk::cuda::synchronize(device.index);
  };

  brisk::models::LeNet5 model;
  model->to(device);
  brisk::optim::SGD opt(model->parameters(), brisk::optim::SGDOptions(0.01).momentum(0.9));
  std::printf("threads %d\n", brisk::get_num_threads());
  for (int64_t batch : args.batches) {
    Tensor images = brisk::randn({batch, 1, 28, 28}).to(device);
    Tensor labels = (brisk::rand({batch}) * 10).to(device, brisk::kInt64);
    auto step = [&] {
      Tensor loss = brisk::nn::functional::cross_entropy(model->forward(images), labels);
      loss.backward();
      opt.step();
      opt.zero_grad();
    };

    for (int i = 0; i < args.warmup; ++i) step();
    sync();
    std::vector<double> rates;
    for (int r = 0; r < args.repeats; ++r) {
      auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < args.steps; ++i) step();
      sync();
      double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      rates.push_back(static_cast<double>(batch * args.steps) / seconds);
    }
    std::sort(rates.begin(), rates.end());
    std::printf("lenet_b%lld %.1f %.1f %.1f\n", static_cast<long long>(batch), rates[rates.size() / 2], rates.front(),
                rates.back());
  }
  return 0;
}
