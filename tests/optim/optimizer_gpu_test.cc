// SGD and Adam stepping CUDA parameters against the same optimizers stepping the same values
// on the CPU, over a few steps with the same gradients: the parameters and the state tensors
// (which live on the GPU with their parameter) match after every step.
#include <string>
#include <vector>

#include "optim/optim.h"
#include "tests/cuda/backend_test_util.h"

namespace brisk::testing {
namespace {

Tolerance optimizer_tolerance(DType dtype) {
  return dtype == kFloat64 ? Tolerance{1e-12, 1e-14} : Tolerance{1e-5, 1e-6};
}

template <typename Optimizer, typename Options>
void check_optimizer(const std::string& what, const Options& options) {
  for (DType dtype : {kFloat32, kFloat64}) {
    INFO(what << " in " << dtype_name(dtype));
    const Tolerance tol = optimizer_tolerance(dtype);
    std::vector<Tensor> cpu{random_cpu({4, 3}, dtype, 1), random_cpu({3}, dtype, 2)};
    std::vector<Tensor> gpu;
    for (Tensor& p : cpu) {
      gpu.push_back(on_gpu(p).requires_grad_());
      p.requires_grad_();
    }
    Optimizer cpu_optimizer(cpu, options), gpu_optimizer(gpu, options);
    for (int step = 1; step <= 4; ++step) {
      for (size_t i = 0; i < cpu.size(); ++i) {
        Tensor grad = random_cpu(cpu[i].sizes(), dtype, 100 * step + i);
        cpu[i].set_grad(grad);
        gpu[i].set_grad(on_gpu(grad));
      }
      cpu_optimizer.step();
      gpu_optimizer.step();
      for (size_t i = 0; i < cpu.size(); ++i) {
        INFO("step " << step << ", parameter " << i);
        require_matches(gpu[i], cpu[i], tol);
        for (const auto& [name, state] : cpu_optimizer.state(cpu[i])) {
          if (name == "step") continue;  // Adam's count: a host-side scalar
          INFO("state " << name);
          require_matches(gpu_optimizer.state(gpu[i]).at(name), state, tol);
        }
      }
    }
  }
}

TEST_CASE("SGD on CUDA parameters matches the CPU", "[gpu]") {
  check_optimizer<optim::SGD>("SGD", optim::SGDOptions(0.1));
  check_optimizer<optim::SGD>("SGD with momentum", optim::SGDOptions(0.1).momentum(0.9));
  check_optimizer<optim::SGD>("SGD with dampening and weight decay",
                              optim::SGDOptions(0.1).momentum(0.9).dampening(0.1).weight_decay(0.01));
  check_optimizer<optim::SGD>("SGD nesterov", optim::SGDOptions(0.1).momentum(0.9).nesterov(true).weight_decay(0.01));
  check_optimizer<optim::SGD>("SGD maximize", optim::SGDOptions(0.1).momentum(0.5).maximize(true));
}

TEST_CASE("Adam and AdamW on CUDA parameters match the CPU", "[gpu]") {
  check_optimizer<optim::Adam>("Adam", optim::AdamOptions(0.01));
  check_optimizer<optim::Adam>("Adam with weight decay", optim::AdamOptions(0.01).weight_decay(0.01));
  check_optimizer<optim::Adam>("Adam amsgrad", optim::AdamOptions(0.01).betas({0.8, 0.9}).amsgrad(true));
  check_optimizer<optim::AdamW>("AdamW", optim::AdamWOptions(0.01));
  check_optimizer<optim::AdamW>("AdamW amsgrad maximize", optim::AdamWOptions(0.01).amsgrad(true).maximize(true));
}

}  // namespace
}  // namespace brisk::testing
