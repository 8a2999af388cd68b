// The CIFAR-10 models on the test device (tests/test_device.h: the CPU here, the simulated
// device in the _sim_test twin, the GPU in the _gpu_test twin): a training step there gives the
// CPU's loss, logits and gradients, with every tensor the models make (the zero-padding
// shortcut's zeros included) on the input's device.
#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "autograd/ops.h"
#include "models/airbench_net.h"
#include "models/cifar_resnet.h"
#include "models/resnet18.h"
#include "nn/functional.h"
#include "tests/models/model_fixture.h"
#include "tests/models/pattern_weights.h"
#include "tests/test_device.h"

using namespace brisk;
using brisk::test::ModelUnderTest;

namespace {

// One float64 training-mode step of `make()` on the CPU and on the test device.
void check_step_on_device(const std::function<ModelUnderTest()>& make) {
  Tensor images = test::pattern_images(2, 3, 32).to(kFloat64);
  Tensor labels = tensor<int64_t>({3, 7}, {2});
  ModelUnderTest cpu = make(), device = make();
  for (ModelUnderTest* model : {&cpu, &device}) {
    model->module->to(kFloat64);
    test::set_pattern_weights(*model->module);
  }
  device.module->to(test::test_device());

  Tensor cpu_logits = cpu.forward(images);
  nn::functional::cross_entropy(cpu_logits, labels).backward();
  Tensor device_logits = device.forward(test::on_test_device(images));
  REQUIRE(device_logits.device() == test::test_device());
  nn::functional::cross_entropy(device_logits, test::on_test_device(labels)).backward();

  REQUIRE(allclose(device_logits.cpu(), cpu_logits, 1e-9, 1e-12));
  auto cpu_params = cpu.module->named_parameters();
  for (const auto& [name, p] : device.module->named_parameters()) {
    INFO(name);
    REQUIRE(p.grad().device() == test::test_device());
    REQUIRE(allclose(p.grad().cpu(), cpu_params[name].grad(), 1e-9, 1e-12));
  }
  auto cpu_buffers = cpu.module->named_buffers();
  for (const auto& [name, b] : device.module->named_buffers()) {
    INFO(name);
    REQUIRE(allclose(b.cpu().to(kFloat64), cpu_buffers[name].to(kFloat64), 1e-9, 1e-12));
  }
}

}  // namespace

TEST_CASE("CIFARResNet: a training step on the test device equals the CPU's") {
  check_step_on_device([] { return ModelUnderTest(models::CIFARResNet(models::CIFARResNetOptions(8))); });
}

TEST_CASE("ResNet18: a training step on the test device equals the CPU's") {
  check_step_on_device([] { return ModelUnderTest(models::ResNet18(models::ResNet18Options().width(4))); });
}

TEST_CASE("AirbenchNet: a training step on the test device equals the CPU's") {
  check_step_on_device([] {
    return ModelUnderTest(models::AirbenchNet(models::AirbenchNetOptions().widths({8, 16, 16})));
  });
}
