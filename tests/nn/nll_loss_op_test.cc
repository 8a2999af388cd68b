// The fused class-index nll_loss (nn/functional/nll_loss_op.h): kernel counts of a training
// step's loss on the simulated device (every backend call is one kernel), the simulated
// device's results against the CPU's, float64 gradchecks of the one node in every reduction
// with class weights and ignore_index, and PyTorch's edge cases.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "nn/functional.h"
#include "tensor/sim/sim_backend.h"
#include "tensor/sim/sim_graph.h"

using namespace brisk;
namespace F = brisk::nn::functional;
using autograd::gradcheck;
using autograd::gradgradcheck;
using Catch::Contains;
using nn::Reduction;
using TensorList = std::vector<Tensor>;

namespace {

const Reduction kReductions[] = {Reduction::None, Reduction::Mean, Reduction::Sum};

Tensor labels(std::vector<int64_t> values, Shape shape, Device device = kCPU) {
  return tensor<int64_t>(values, shape).to(device);
}

// The kernels that `step` runs on the simulated device.
template <typename F>
uint64_t kernels_of(F&& step) {
  sim::reset_kernel_counts();
  step();
  return sim::kernel_counts().run;
}

Tensor leaf_on(const Shape& shape, DType dtype, Device device, uint64_t seed) {
  Generator g(seed);
  return randn(shape, dtype, &g).to(device).requires_grad_();
}

}  // namespace

TEST_CASE("cross_entropy on [N, C] logits, forward and backward, runs PyTorch's 5 kernels on a device") {
  const Device sim = sim_device(0);
  Tensor logits = leaf_on({8, 10}, kFloat32, sim, 1);
  Tensor target = labels({0, 1, 2, 3, 4, 5, 6, 9}, {8}, sim);
  F::check_deferred_targets();
  // The first call after a check makes the device's target record (one fill kernel).
  CHECK(kernels_of([&] { F::cross_entropy(logits, target); }) == 3);
  // log_softmax, nll_loss_forward; the seed of backward (ones), nll_loss_backward,
  // log_softmax_backward. The logits' gradient is the last kernel's output, taken as is.
  CHECK(kernels_of([&] { F::cross_entropy(logits, target); }) == 2);
  const uint64_t copies = sim::copy_counts().device_to_host;
  logits.set_grad(Tensor());
  CHECK(kernels_of([&] { F::cross_entropy(logits, target).backward(); }) == 5);
  CHECK(sim::copy_counts().device_to_host == copies);  // nothing read back
  F::check_deferred_targets();
}

TEST_CASE("nll_loss with weights and ignore_index, and on [N, C, H, W], runs one kernel each way on a device") {
  const Device sim = sim_device(0);
  Tensor weight = rand({5}, kFloat32).to(sim) + 0.5;
  Tensor log_probs = leaf_on({6, 5}, kFloat32, sim, 2);
  Tensor target = labels({1, -1, 4, 0, 3, -1}, {6}, sim);
  Tensor images = leaf_on({2, 5, 3, 4}, kFloat32, sim, 3);
  Tensor image_target = randint(0, 5, {2, 3, 4}, kInt64).to(sim);
  for (Reduction reduction : kReductions) {
    F::nll_loss(log_probs, target, weight, -1, reduction);  // the target records
    F::nll_loss(images, image_target, Tensor(), -100, reduction);
    INFO("reduction " << static_cast<int>(reduction));
    // A scalar loss: nll_loss_forward; the seed of backward (ones), nll_loss_backward. A
    // per-element one, summed: sum's kernel and the copy of its expanded gradient besides.
    auto backward = [&](const Tensor& loss) { (reduction == Reduction::None ? loss.sum() : loss).backward(); };
    log_probs.set_grad(Tensor());  // a gradient to accumulate into would add a kernel
    images.set_grad(Tensor());
    const uint64_t expected = reduction == Reduction::None ? 5 : 3;
    CHECK(kernels_of([&] { backward(F::nll_loss(log_probs, target, weight, -1, reduction)); }) == expected);
    CHECK(kernels_of([&] { backward(F::nll_loss(images, image_target, Tensor(), -100, reduction)); }) == expected);
  }
  F::check_deferred_targets();
}

TEST_CASE("nll_loss and cross_entropy on a device equal the CPU's bit for bit, gradients included") {
  const Device sim = sim_device(0);
  Tensor weight = rand({5}, kFloat32) + 0.5;
  Tensor target = labels({1, 7, 4, 0, 3, 7, 2}, {7});  // ignore_index 7
  Tensor spatial_target = randint(0, 5, {2, 3, 2}, kInt64);
  for (Reduction reduction : kReductions) {
    for (bool spatial : {false, true}) {
      INFO("reduction " << static_cast<int>(reduction) << (spatial ? ", [N, C, H, W]" : ", [N, C]"));
      const Shape shape = spatial ? Shape{2, 5, 3, 2} : Shape{7, 5};
      const Tensor& t = spatial ? spatial_target : target;
      Tensor x = leaf_on(shape, kFloat32, kCPU, 4), sx = leaf_on(shape, kFloat32, sim, 4);
      Tensor y = F::cross_entropy(x, t, weight, 7, reduction);
      Tensor sy = F::cross_entropy(sx, t.to(sim), weight.to(sim), 7, reduction);
      CHECK(equal(sy.to(kCPU), y));
      y.sum().backward();
      sy.sum().backward();
      CHECK(equal(sx.grad().to(kCPU), x.grad()));
    }
  }
  F::check_deferred_targets();
}

TEST_CASE("gradcheck: the fused nll_loss in every reduction, with class weights, ignore_index, [C] and [N, C, H, W]") {
  Generator g(9);
  Tensor weight = rand({4}, kFloat64, &g) + 0.5;
  Tensor target = labels({1, -100, 3, 0, 3}, {5});
  Tensor spatial = labels({0, 2, 2, -100, 1, 0, 0, 1}, {2, 2, 2});
  for (Reduction reduction : kReductions) {
    INFO("reduction " << static_cast<int>(reduction));
    for (const Tensor& w : {Tensor(), weight}) {
      CHECK(gradcheck([&](const TensorList& in) { return F::nll_loss(in[0], target, w, -100, reduction); },
                      {leaf_on({5, 4}, kFloat64, kCPU, 5)}));
      CHECK(gradcheck([&](const TensorList& in) { return F::nll_loss(in[0], spatial, Tensor(), -100, reduction); },
                      {leaf_on({2, 3, 2, 2}, kFloat64, kCPU, 6)}));
      CHECK(gradcheck([&](const TensorList& in) { return F::nll_loss(in[0], labels({2}, {}), w, -100, reduction); },
                      {leaf_on({4}, kFloat64, kCPU, 7)}));
      // Double backward: through log_softmax's gradient, the fused backward differentiated in
      // its grad_out.
      CHECK(gradgradcheck([&](const TensorList& in) { return F::cross_entropy(in[0], target, w, -100, reduction); },
                          {leaf_on({5, 4}, kFloat64, kCPU, 8)}));
    }
  }
}

TEST_CASE("nll_loss edge cases as in PyTorch: all ignored, empty, unbatched, ignore_index inside [0, C)") {
  Tensor x = leaf_on({3, 4}, kFloat64, kCPU, 10);
  Tensor all_ignored = labels({-100, -100, -100}, {3});
  Tensor mean = F::nll_loss(x, all_ignored);
  CHECK(std::isnan(mean.item<double>()));  // 0 / 0
  mean.backward();
  CHECK(equal(x.grad(), zeros({3, 4}, kFloat64)));  // no target counts: no gradient
  CHECK(F::nll_loss(x, all_ignored, Tensor(), -100, Reduction::Sum).item<double>() == 0.0);
  CHECK(std::isnan(F::nll_loss(zeros({0, 4}), labels({}, {0})).item<float>()));
  CHECK(F::nll_loss(zeros({0, 4}), labels({}, {0}), Tensor(), -100, Reduction::None).sizes() == Shape{0});
  // Unbatched: a [C] input and a [] target.
  Tensor v = tensor<double>({-1.0, -2.0, -3.0}, {3});
  CHECK(F::nll_loss(v, labels({1}, {}), Tensor(), -100, Reduction::None).sizes() == Shape{});
  CHECK(F::nll_loss(v, labels({1}, {})).item<double>() == 2.0);
  // ignore_index may be a class: that class's targets are ignored, and no other class is.
  Tensor logp = tensor<double>({-1.0, -2.0, -3.0, -4.0}, {2, 2});
  CHECK(F::nll_loss(logp, labels({0, 1}, {2}), Tensor(), 0, Reduction::Sum).item<double>() == 4.0);
  // Weighted mean: divided by the weights of the targets that count.
  Tensor w = tensor<double>({1.0, 3.0}, {2});
  CHECK(F::nll_loss(logp, labels({0, 1}, {2}), w).item<double>() == Approx((1.0 + 3.0 * 4.0) / 4.0));
}

TEST_CASE("nll_loss refuses class weights that require grad, as PyTorch has no gradient for them") {
  Tensor w = ones({4}).requires_grad_();
  CHECK_THROWS_WITH(F::nll_loss(zeros({2, 4}), labels({0, 1}, {2}), w),
                    Contains("nll_loss: the class weights") && Contains("require grad"));
  CHECK_NOTHROW(F::nll_loss(zeros({2, 4}), labels({0, 1}, {2}), w.detach()));
}

TEST_CASE("a bad target on the CPU names its element; on a device it is recorded by the loss's own kernel") {
  CHECK_THROWS_WITH(F::nll_loss(zeros({3, 4}), labels({0, 1, 9}, {3})),
                    Contains("nll_loss: target 9 is out of bounds for 4 classes (ignore_index -100), element 2"));
  const Device sim = sim_device(0);
  F::check_deferred_targets();
  Tensor x = zeros({3, 4}).to(sim);
  F::nll_loss(x, labels({0, 1, 2}, {3}, sim));  // makes the record
  CHECK(kernels_of([&] { F::nll_loss(x, labels({0, -3, 2}, {3}, kCPU).to(sim)); }) == 1);
  CHECK_THROWS_WITH(F::check_deferred_targets(), Contains("nll_loss: target -3 is out of bounds for 4 classes") &&
                                                     Contains("element 1 of the target of call 2 of 2"));
}
