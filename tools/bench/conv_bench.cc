// CPU time of the LeNet-sized convolution and pooling layers, forward + backward, at batch 64
// and 256 on 28x28 inputs: conv1 (1 -> 6 channels, 5x5, padding 2), max pool 2x2, conv2 (6 ->
// 16, 5x5) and the whole stack. Each figure is the median milliseconds of repeated runs after
// warm-up. Prints "name ms" lines for tools/bench/run_cpu_bench.sh, which runs the PyTorch
// twin (conv_bench_torch.py) with the same thread count and compares.
#include <cstdio>
#include <functional>
#include <string>

#include "autograd/ops.h"
#include "nn/functional.h"
#include "tensor/parallel.h"
#include "tools/bench/timing.h"

namespace {

using brisk::Tensor;
namespace F = brisk::nn::functional;
using brisk::bench::median_ms;

Tensor param(const brisk::Shape& shape) { return (brisk::randn(shape) * 0.1).detach().requires_grad_(); }

// Runs the forward and the backward of `f` on a fresh leaf input of `shape`.
double time_layer(const brisk::Shape& shape, const std::function<Tensor(const Tensor&)>& f) {
  Tensor x = brisk::randn(shape).requires_grad_();
  return median_ms(3, 15, [&] {
    Tensor y = f(x);
    y.backward(brisk::ones_like(y));
  });
}

}  // namespace

int main() {
  brisk::manual_seed(0);
  std::printf("threads %d\n", brisk::get_num_threads());
  Tensor w1 = param({6, 1, 5, 5}), b1 = param({6}), w2 = param({16, 6, 5, 5}), b2 = param({16});
  for (int64_t batch : {64, 256}) {
    std::string n = std::to_string(batch);
    std::printf("conv1_b%s_ms %.3f\n", n.c_str(),
                time_layer({batch, 1, 28, 28}, [&](const Tensor& x) { return F::conv2d(x, w1, b1, 1, 2); }));
    std::printf("maxpool1_b%s_ms %.3f\n", n.c_str(),
                time_layer({batch, 6, 28, 28}, [&](const Tensor& x) { return F::max_pool2d(x, 2); }));
    std::printf("conv2_b%s_ms %.3f\n", n.c_str(),
                time_layer({batch, 6, 14, 14}, [&](const Tensor& x) { return F::conv2d(x, w2, b2); }));
    std::printf("lenet_features_b%s_ms %.3f\n", n.c_str(), time_layer({batch, 1, 28, 28}, [&](const Tensor& x) {
                  Tensor h = F::max_pool2d(F::relu(F::conv2d(x, w1, b1, 1, 2)), 2);
                  return F::max_pool2d(F::relu(F::conv2d(h, w2, b2)), 2);
                }));
  }
  return 0;
}
