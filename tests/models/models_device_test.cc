// The CIFAR-10 models on the test device (tests/test_device.h: the CPU here, the simulated
// device in the _sim_test twin, the GPU in the _gpu_test twin): a training step there gives the
// CPU's loss, logits and gradients, with every tensor the models make (the zero-padding
// shortcut's zeros included) on the input's device. The CPU and simulated-device twins
// compare element by element; the GPU twin in relative norms (see kForwardBound).
#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "models/airbench_net.h"
#include "models/cifar_resnet.h"
#include "models/resnet18.h"
#include "nn/functional.h"
#include "tests/models/model_fixture.h"
#include "tests/models/pattern_weights.h"
#include "tests/test_device.h"

using namespace brisk;

namespace {

// ||got - want|| / ||want||, both float64 on the CPU.
double relative_error(const Tensor& got, const Tensor& want) {
  double den = want.norm().item<double>();
  double num = (got - want).norm().item<double>();
  return den == 0 ? num : num / den;
}

// The CPU and simulated-device twins run the CPU's kernels: the step agrees element by element
// to float64 rounding.
void require_close_elementwise(const Tensor& got, const Tensor& want) { REQUIRE(allclose(got, want, 1e-9, 1e-12)); }

// On CUDA, cuDNN, cuBLAS and Brisk's kernels sum in other orders than the CPU, so values differ
// by float64 roundings (2^-53 each), grown through the network's layers and its batch
// statistics: about 1e-14 relative, as perturbing the CPU's inputs by 1e-15 shows. Element by
// element that is not bounded where a value cancels to near 0, so the values are compared in
// relative norm, within 1e-10 (a factor 1e4 of room).
//
// That holds for the forward values (logits, running statistics): they are continuous in the
// inputs, so where a value sits at a tie (a batch-norm output 0 on the CPU and 1e-17 on the
// GPU going into a ReLU, two equal candidates of a max pool), either side of the tie gives
// outputs within those 1e-17. Gradients are not: the tie decides whether (ReLU) or where (max
// pool) one upstream gradient element goes. Emulated on the CPU for ResNet18 (width 4, these
// inputs), passing the largest upstream element through one dead ReLU moved the whole gradient
// by 5-7% of its norm (a flip at the stem or at the last block), one parameter's by up to 16%.
// So the whole gradient, all parameters as one vector, must agree within 0.1 in relative norm,
// which one flip cannot break; a parameter off by more than 1e-10 is named in a warning, to
// tell a flip from a defect in the run's log.
constexpr double kForwardBound = 1e-10;
constexpr double kGradientBound = 0.1;
constexpr double kParameterNotice = 1e-10;

// One float64 training-mode step of `make()` on the CPU and on the test device.
void check_step_on_device(const std::function<std::shared_ptr<nn::Module>()>& make) {
  Tensor images = test::pattern_images(2, 3, 32).to(kFloat64);
  Tensor labels = tensor<int64_t>({3, 7}, {2});
  std::shared_ptr<nn::Module> cpu = make(), device = make();
  for (nn::Module* model : {cpu.get(), device.get()}) {
    model->to(kFloat64);
    test::set_pattern_weights(*model);
  }
  device->to(test::test_device());

  Tensor cpu_logits = cpu->forward(images);
  nn::functional::cross_entropy(cpu_logits, labels).backward();
  Tensor device_logits = device->forward(test::on_test_device(images));
  REQUIRE(device_logits.device() == test::test_device());
  nn::functional::cross_entropy(device_logits, test::on_test_device(labels)).backward();

  const bool cuda = test::test_device().is_cuda();
  auto require_forward_close = [&](const Tensor& got, const Tensor& want) {
    if (cuda) {
      REQUIRE(relative_error(got, want) < kForwardBound);
    } else {
      require_close_elementwise(got, want);
    }
  };
  require_forward_close(device_logits.cpu(), cpu_logits);
  auto cpu_params = cpu->named_parameters();
  std::vector<Tensor> got_grads, want_grads;
  for (const auto& [name, p] : device->named_parameters()) {
    INFO(name);
    REQUIRE(p.grad().device() == test::test_device());
    Tensor got = p.grad().cpu(), want = cpu_params[name].grad();
    if (!cuda) {
      require_close_elementwise(got, want);
      continue;
    }
    double error = relative_error(got, want);
    if (error > kParameterNotice) WARN("the gradient of " << name << " is " << error << " off in relative norm");
    got_grads.push_back(got.flatten());
    want_grads.push_back(want.flatten());
  }
  if (cuda) REQUIRE(relative_error(cat(got_grads), cat(want_grads)) < kGradientBound);
  auto cpu_buffers = cpu->named_buffers();
  for (const auto& [name, b] : device->named_buffers()) {
    INFO(name);
    require_forward_close(b.cpu().to(kFloat64), cpu_buffers[name].to(kFloat64));
  }
}

}  // namespace

TEST_CASE("CIFARResNet: a training step on the test device equals the CPU's") {
  check_step_on_device([] { return models::CIFARResNet(models::CIFARResNetOptions(8)).ptr(); });
}

TEST_CASE("ResNet18: a training step on the test device equals the CPU's") {
  check_step_on_device([] { return models::ResNet18(models::ResNet18Options().width(4)).ptr(); });
}

TEST_CASE("AirbenchNet: a training step on the test device equals the CPU's") {
  check_step_on_device([] {
    return models::AirbenchNet(models::AirbenchNetOptions().widths({8, 16, 16})).ptr();
  });
}
