// Where a ResNet-20 training step (models::resnet20, batch B) spends its time, by layer: each
// distinct layer of the network is timed alone at the shape it has there, forward (with
// autograd recording) and backward, and multiplied by the number of such layers; the whole
// step (forward, cross_entropy, backward, SGD with momentum, zero_grad) is timed too, so that
// what the layers leave out (the option-A shortcuts, the head, the optimizer, the engine)
// shows as the remainder. Prints, per layer kind,
//
//   layer <name> <count> <forward ms, one layer> <backward ms, one layer>
//   step <ms>
//
// (medians of `repeats` timings) for tools/bench/run_resnet20_breakdown.sh, which runs the
// PyTorch twin (resnet20_breakdown_torch.py) with the same arguments and compares.
//
//   resnet20_breakdown --threads 2 [--batch 64] [--repeats 20]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>

#include "autograd/ops.h"
#include "models/cifar_resnet.h"
#include "nn/functional.h"
#include "optim/sgd.h"
#include "tensor/parallel.h"
#include "tools/bench/timing.h"

namespace {

using brisk::Tensor;
namespace F = brisk::nn::functional;
using brisk::bench::median_ms;

// Untimed calls before each timing.
constexpr int kWarmup = 3;

Tensor leaf(const brisk::Shape& shape) { return brisk::randn(shape).requires_grad_(); }

// Times f's forward alone and forward + backward on a leaf input of `shape`; prints the
// forward and the difference. The input's gradient is dropped before each backward, so it is
// written, not accumulated (the parameters' small gradients accumulate, on both sides).
void layer(const char* name, int count, int repeats, const brisk::Shape& shape,
           const std::function<Tensor(const Tensor&)>& f) {
  Tensor x = leaf(shape);
  Tensor grad = brisk::randn(f(x).sizes());
  double forward = median_ms(kWarmup, repeats, [&] { f(x); });
  double both = median_ms(kWarmup, repeats, [&] {
    x.set_grad(Tensor());
    f(x).backward(grad);
  });
  std::printf("layer %s %d %.4f %.4f\n", name, count, forward, std::max(0.0, both - forward));
}

}  // namespace

int main(int argc, char** argv) {
  int threads = brisk::get_num_threads(), repeats = 20;
  int64_t b = 64;
  CLI::App app{"ResNet-20's training step by layer (see tools/bench/run_resnet20_breakdown.sh)"};
  app.add_option("--threads", threads, "CPU threads");
  app.add_option("--batch", b, "images per step");
  app.add_option("--repeats", repeats, "timings per median");
  CLI11_PARSE(app, argc, argv);
  brisk::set_num_threads(threads);
  brisk::manual_seed(0);
  std::printf("threads %d\n", brisk::get_num_threads());

  // The 3x3 convolutions (no bias): the stem, then per stage the first (stride 2 from the
  // second stage on) and the other five.
  struct Conv {
    const char* name;
    int count;
    int64_t in, out, size, stride;
  };
  for (const Conv& c : {Conv{"conv_3_16_s1_32px", 1, 3, 16, 32, 1}, Conv{"conv_16_16_s1_32px", 6, 16, 16, 32, 1},
                        Conv{"conv_16_32_s2_32px", 1, 16, 32, 32, 2}, Conv{"conv_32_32_s1_16px", 5, 32, 32, 16, 1},
                        Conv{"conv_32_64_s2_16px", 1, 32, 64, 16, 2}, Conv{"conv_64_64_s1_8px", 5, 64, 64, 8, 1}}) {
    Tensor w = leaf({c.out, c.in, 3, 3});
    layer(c.name, c.count, repeats, {b, c.in, c.size, c.size},
          [&](const Tensor& x) { return F::conv2d(x, w, Tensor(), c.stride, 1); });
  }
  // Per stage: 7, 6 and 6 batch norms and ReLUs (the block-final ReLU follows the residual
  // add, one per block).
  struct Stage {
    int64_t channels, size;
    int norms, adds;
  };
  for (const Stage& s : {Stage{16, 32, 7, 3}, Stage{32, 16, 6, 3}, Stage{64, 8, 6, 3}}) {
    const brisk::Shape shape{b, s.channels, s.size, s.size};
    const std::string suffix = "_" + std::to_string(s.channels) + "ch_" + std::to_string(s.size) + "px";
    Tensor weight = leaf({s.channels}), bias = leaf({s.channels});
    Tensor running_mean = brisk::zeros({s.channels}), running_var = brisk::ones({s.channels});
    layer(("batch_norm" + suffix).c_str(), s.norms, repeats, shape,
          [&](const Tensor& x) { return F::batch_norm(x, running_mean, running_var, weight, bias, true, 0.1, 1e-5); });
    layer(("relu" + suffix).c_str(), s.norms, repeats, shape, [](const Tensor& x) { return F::relu(x); });
    Tensor other = leaf(shape);
    layer(("add" + suffix).c_str(), s.adds, repeats, shape, [&](const Tensor& x) { return x + other; });
  }

  brisk::models::CIFARResNet model = brisk::models::resnet20();
  brisk::optim::SGD opt(model->parameters(), brisk::optim::SGDOptions(0.01).momentum(0.9));
  Tensor images = brisk::randn({b, 3, 32, 32});
  Tensor labels = (brisk::rand({b}) * 10).to(brisk::kInt64);
  std::printf("step %.4f\n", median_ms(kWarmup, repeats, [&] {
                F::cross_entropy(model->forward(images), labels).backward();
                opt.step();
                opt.zero_grad();
              }));
  return 0;
}
