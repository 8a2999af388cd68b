// The fused optimizer updates (native::sgd_step_, native::adam_step_) on CUDA against the CPU
// backend's, in float32 and float64, for each option that changes the update, on contiguous
// and transposed (strided) operands.
#include <cmath>
#include <string>

#include "tests/cuda/backend_test_util.h"

namespace brisk::testing {
namespace {

Tolerance step_tolerance(DType dtype) { return dtype == kFloat64 ? Tolerance{1e-12, 1e-14} : Tolerance{1e-5, 1e-6}; }

// A [6, 5] operand on the CPU and the same values on the GPU; transposed: viewed from a
// [5, 6] tensor, so strided.
struct Operand {
  Tensor cpu, gpu;
};

Operand operand(DType dtype, uint64_t seed, bool transposed, double lo = -2.0, double hi = 2.0) {
  Tensor base = random_cpu(transposed ? Shape{5, 6} : Shape{6, 5}, dtype, seed, lo, hi);
  Tensor gpu = on_gpu(base);
  if (!transposed) return {base, gpu};
  return {native::transpose(base, 0, 1), native::transpose(gpu, 0, 1)};
}

struct SgdCase {
  const char* name;
  SgdStepParams params;
};

SgdStepParams sgd(double momentum, double dampening, double weight_decay, bool nesterov, bool maximize,
                  bool first_step) {
  SgdStepParams p;
  p.lr = 0.05;
  p.momentum = momentum;
  p.dampening = dampening;
  p.weight_decay = weight_decay;
  p.nesterov = nesterov;
  p.maximize = maximize;
  p.first_step = first_step;
  return p;
}

TEST_CASE("sgd_step_ on CUDA matches the CPU", "[gpu]") {
  const SgdCase cases[] = {
      {"plain", sgd(0, 0, 0, false, false, false)},
      {"weight decay", sgd(0, 0, 0.01, false, false, false)},
      {"maximize", sgd(0, 0, 0.01, false, true, false)},
      {"momentum, first step", sgd(0.9, 0, 0, false, false, true)},
      {"momentum and dampening", sgd(0.9, 0.1, 0, false, false, false)},
      {"nesterov with weight decay", sgd(0.9, 0, 0.01, true, false, false)},
      {"nesterov, first step, maximize", sgd(0.8, 0, 0.02, true, true, true)},
  };
  for (const SgdCase& c : cases) {
    for (DType dtype : {kFloat32, kFloat64}) {
      for (bool transposed : {false, true}) {
        INFO("sgd_step_ " << c.name << " in " << dtype_name(dtype) << (transposed ? ", transposed" : ", contiguous"));
        Operand param = operand(dtype, 1, transposed), grad = operand(dtype, 2, transposed);
        Operand buf = c.params.momentum != 0 ? operand(dtype, 3, transposed) : Operand();
        native::sgd_step_(param.cpu, grad.cpu, buf.cpu, c.params);
        native::sgd_step_(param.gpu, grad.gpu, buf.gpu, c.params);
        require_matches(param.gpu, param.cpu, step_tolerance(dtype));
        if (buf.cpu.defined()) require_matches(buf.gpu, buf.cpu, step_tolerance(dtype));
      }
    }
  }
}

struct AdamCase {
  const char* name;
  AdamStepParams params;
};

// The options of step `t`, with the bias corrections computed as optim::Adam does.
AdamStepParams adam(double weight_decay, bool decoupled, bool amsgrad, bool maximize, int t) {
  AdamStepParams p;
  p.lr = 0.01;
  p.beta1 = 0.9;
  p.beta2 = 0.99;
  p.eps = 1e-6;
  p.weight_decay = weight_decay;
  p.decoupled_weight_decay = decoupled;
  p.amsgrad = amsgrad;
  p.maximize = maximize;
  p.step_size = p.lr / (1 - std::pow(p.beta1, t));
  p.bias_correction2_sqrt = std::sqrt(1 - std::pow(p.beta2, t));
  return p;
}

TEST_CASE("adam_step_ on CUDA matches the CPU", "[gpu]") {
  const AdamCase cases[] = {
      {"plain, first step", adam(0, false, false, false, 1)},
      {"step 5", adam(0, false, false, false, 5)},
      {"L2 weight decay", adam(0.01, false, false, false, 3)},
      {"decoupled weight decay (AdamW)", adam(0.01, true, false, false, 3)},
      {"amsgrad", adam(0, false, true, false, 4)},
      {"amsgrad, AdamW, maximize", adam(0.05, true, true, true, 2)},
  };
  for (const AdamCase& c : cases) {
    for (DType dtype : {kFloat32, kFloat64}) {
      for (bool transposed : {false, true}) {
        INFO("adam_step_ " << c.name << " in " << dtype_name(dtype) << (transposed ? ", transposed" : ", contiguous"));
        Operand param = operand(dtype, 1, transposed), grad = operand(dtype, 2, transposed);
        Operand m = operand(dtype, 3, transposed, -0.5, 0.5), v = operand(dtype, 4, transposed, 0.0, 0.5);
        Operand v_max = c.params.amsgrad ? operand(dtype, 5, transposed, 0.0, 0.5) : Operand();
        native::adam_step_(param.cpu, grad.cpu, m.cpu, v.cpu, v_max.cpu, c.params);
        native::adam_step_(param.gpu, grad.gpu, m.gpu, v.gpu, v_max.gpu, c.params);
        require_matches(param.gpu, param.cpu, step_tolerance(dtype));
        require_matches(m.gpu, m.cpu, step_tolerance(dtype));
        require_matches(v.gpu, v.cpu, step_tolerance(dtype));
        if (v_max.cpu.defined()) require_matches(v_max.gpu, v_max.cpu, step_tolerance(dtype));
      }
    }
  }
}

}  // namespace
}  // namespace brisk::testing
