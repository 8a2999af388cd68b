// ResNet-20 channels_last end to end: float64 training with Module::to(ChannelsLast) equals
// contiguous training step for step, and no op converts the layout back: every 4-D tensor
// autograd saves in a channels_last forward and backward is channels_last. The twin runs on
// the simulated device.
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "autograd/saved_tensors_hooks.h"
#include "models/cifar_resnet.h"
#include "nn/functional.h"
#include "optim/sgd.h"
#include "tests/test_device.h"

using namespace brisk;

namespace {

constexpr MemoryFormat kCL = MemoryFormat::ChannelsLast;

// A float64 ResNet-20 on the test device with the weights of `from` (when given).
models::CIFARResNet resnet20_like(const models::CIFARResNet& from = nullptr) {
  models::CIFARResNet model = models::resnet20();
  if (from) model->load_state_dict(from->state_dict());
  model->to(test::test_device(), kFloat64);
  return model;
}

// `steps` SGD steps (momentum, weight decay) on fixed batches; returns the losses.
std::vector<double> train(models::CIFARResNet& model, int steps, bool channels_last) {
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.05).momentum(0.9).weight_decay(5e-4));
  Generator g(5);
  std::vector<double> losses;
  for (int step = 0; step < steps; ++step) {
    Tensor x = test::on_test_device(randn({4, 3, 16, 16}, kFloat64, &g));
    Tensor y = test::on_test_device(randint(0, 10, {4}, kInt64, &g));
    if (channels_last) x = x.contiguous(kCL);
    opt.zero_grad();
    Tensor loss = nn::functional::cross_entropy(model->forward(x), y);
    loss.backward();
    opt.step();
    losses.push_back(loss.item<double>());
  }
  return losses;
}

// A 4-D tensor whose layout matters: more than one element per channel and several channels.
bool has_a_layout(const Tensor& t) { return t.dim() == 4 && t.size(1) > 1 && t.size(2) * t.size(3) > 1; }

}  // namespace

TEST_CASE("ResNet-20: float64 training channels_last equals contiguous training") {
  models::CIFARResNet contiguous = resnet20_like();
  models::CIFARResNet channels_last = resnet20_like(contiguous);
  channels_last->to(kCL);
  for (const Tensor& p : channels_last->parameters()) {
    if (p.dim() == 4) REQUIRE(p.is_contiguous(kCL));
  }
  std::vector<double> expected = train(contiguous, 3, false), got = train(channels_last, 3, true);
  for (size_t i = 0; i < expected.size(); ++i) CHECK(got[i] == Approx(expected[i]).epsilon(1e-12));
  auto a = contiguous->named_parameters(), b = channels_last->named_parameters();
  for (const auto& [name, p] : a) {
    INFO(name);
    CHECK(test::max_abs_diff(b[name], p) < 1e-10);
    // The optimizer and AccumulateGrad kept every parameter in its layout.
    if (p.dim() == 4) CHECK(b[name].is_contiguous(kCL));
  }
}

TEST_CASE("ResNet-20: a channels_last forward and backward convert no activation back to contiguous") {
  models::CIFARResNet model = resnet20_like();
  model->to(kCL);
  int64_t saved = 0;
  std::vector<std::string> contiguous_ones;
  {
    autograd::SavedTensorsHooks check(
        [&](const Tensor& t) -> std::any {
          if (has_a_layout(t)) {
            ++saved;
            if (!t.is_contiguous(kCL)) contiguous_ones.push_back(fmt::format("{} {}", t.sizes(), t.strides()));
          }
          return t;
        },
        [](const std::any& packed) { return std::any_cast<Tensor>(packed); });
    Tensor x = test::on_test_device(randn({2, 3, 16, 16}, kFloat64)).contiguous(kCL);
    Tensor logits = model->forward(x);
    logits.sum().backward();
  }
  INFO(fmt::format("{}", fmt::join(contiguous_ones, "; ")));
  CHECK(saved > 40);  // the convolutions' inputs and weights, batch norms', ReLUs' outputs
  CHECK(contiguous_ones.empty());
  for (const Tensor& p : model->parameters()) {
    if (p.dim() == 4) CHECK(p.grad().is_contiguous(kCL));
  }
}
