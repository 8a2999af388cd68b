// SGD, Adam and AdamW update a group's parameters through the multi-tensor ops
// (native::multi_tensor_sgd_step_, multi_tensor_adam_step_): over ResNet-20's parameters, on
// the CPU and on the simulated device, in float32 and float64, they leave the parameters and
// their state bit for bit where the per-tensor ops (native::sgd_step_, adam_step_), one call
// per parameter as the optimizers ran before, leave them; and on the simulated device a step
// is one kernel per (device, dtype) group instead of one per parameter.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "models/cifar_resnet.h"
#include "optim/adam.h"
#include "optim/sgd.h"
#include "tensor/generator.h"
#include "tensor/native/ops.h"
#include "tensor/sim/sim_graph.h"

namespace brisk::optim {
namespace {

// Whether a and b hold the same bits (on the host, element by element in logical order), or
// are both undefined.
bool same_bits(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined()) return a.defined() == b.defined();
  if (a.sizes() != b.sizes() || a.dtype() != b.dtype()) return false;
  Tensor x = a.to(kCPU).contiguous(), y = b.to(kCPU).contiguous();
  return std::memcmp(x.raw_data(), y.raw_data(), x.nbytes()) == 0;
}

// ResNet-20's parameters (seeded) on `device` in `dtype`, in `format` where they are 4-D.
std::vector<Tensor> resnet20_params(Device device, DType dtype, MemoryFormat format = MemoryFormat::Contiguous) {
  manual_seed(0);
  models::CIFARResNet model = models::resnet20();
  model->to(device, dtype);
  if (format != MemoryFormat::Contiguous) model->to(format);
  return model->parameters();
}

// Copies of `params` (same values, layout and device) to step the other way.
std::vector<Tensor> copies(const std::vector<Tensor>& params) {
  std::vector<Tensor> out;
  for (const Tensor& p : params) {
    Tensor c = native::empty_like(p);
    native::copy_(c, p);
    out.push_back(c.requires_grad_(true));
  }
  return out;
}

// Gives each parameter a random gradient laid out as the parameter (as backward leaves it),
// the same for every set of parameters given the same seed.
void set_grads(const std::vector<Tensor>& params, uint64_t seed) {
  Generator gen(seed);
  for (const Tensor& p : params) {
    Tensor grad = native::empty_like(p);
    native::copy_(grad, randn(p.sizes(), TensorOptions(p.dtype()), &gen));
    p.set_grad(grad);
  }
}

// SGD as it ran before the multi-tensor ops: one sgd_step_ per parameter with a gradient.
struct PerTensorSgd {
  void step(const std::vector<Tensor>& params) {
    NoGradGuard no_grad;
    buffers.resize(params.size());
    for (size_t i = 0; i < params.size(); ++i) {
      if (!params[i].grad().defined()) continue;
      SgdStepParams o = options;
      if (o.momentum != 0.0) {
        o.first_step = !buffers[i].defined();
        if (o.first_step) buffers[i] = native::empty_like(params[i]);
      }
      native::sgd_step_(params[i], params[i].grad(), buffers[i], o);
    }
  }
  SgdStepParams options;
  std::vector<Tensor> buffers;
};

// Adam as it ran before: one adam_step_ per parameter, its step count kept per parameter.
struct PerTensorAdam {
  void step(const std::vector<Tensor>& params) {
    NoGradGuard no_grad;
    exp_avg.resize(params.size()), exp_avg_sq.resize(params.size()), max_exp_avg_sq.resize(params.size());
    steps.resize(params.size());
    for (size_t i = 0; i < params.size(); ++i) {
      if (!params[i].grad().defined()) continue;
      if (!exp_avg[i].defined()) exp_avg[i] = zeros_like(params[i]), exp_avg_sq[i] = zeros_like(params[i]);
      if (options.amsgrad && !max_exp_avg_sq[i].defined()) max_exp_avg_sq[i] = zeros_like(params[i]);
      const double t = static_cast<double>(++steps[i]);
      AdamStepParams o = options;
      o.step_size = o.lr / (1.0 - std::pow(o.beta1, t));
      o.bias_correction2_sqrt = std::pow(1.0 - std::pow(o.beta2, t), 0.5);
      native::adam_step_(params[i], params[i].grad(), exp_avg[i], exp_avg_sq[i], max_exp_avg_sq[i], o);
    }
  }
  AdamStepParams options;
  std::vector<Tensor> exp_avg, exp_avg_sq, max_exp_avg_sq;
  std::vector<int> steps;
};

void require_same(const std::vector<Tensor>& a, const std::vector<Tensor>& b, const char* what) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO(what << " " << i << ": " << a[i].describe());
    REQUIRE(same_bits(a[i], b[i]));
  }
}

// The named state of each parameter (undefined where it has none).
std::vector<Tensor> state_of(Optimizer& optimizer, const std::vector<Tensor>& params, const char* name) {
  std::vector<Tensor> out;
  for (const Tensor& p : params) {
    const ParamState* state = optimizer.find_state(p);
    out.push_back(state != nullptr && state->count(name) ? state->at(name) : Tensor());
  }
  return out;
}

struct Place {
  Device device;
  DType dtype;
};
const Place kPlaces[] = {{kCPU, kFloat32}, {kCPU, kFloat64}, {sim_device(0), kFloat32}, {sim_device(0), kFloat64}};

SGDOptions sgd_options(const SgdStepParams& o) {
  return SGDOptions(o.lr)
      .momentum(o.momentum)
      .dampening(o.dampening)
      .weight_decay(o.weight_decay)
      .nesterov(o.nesterov)
      .maximize(o.maximize);
}

SgdStepParams sgd(double momentum, double dampening, double weight_decay, bool nesterov, bool maximize) {
  return {0.05, momentum, dampening, weight_decay, nesterov, maximize, false};
}

// Three steps (the first, with new momentum buffers, and two later ones) of SGD with `o` and
// of the per-tensor reference, from the same parameters and gradients: the same bits.
void check_sgd(const std::vector<Tensor>& params, const SgdStepParams& o) {
  std::vector<Tensor> reference = copies(params);
  SGD optimizer(params, sgd_options(o));
  PerTensorSgd per_tensor{o, {}};
  for (uint64_t step = 0; step < 3; ++step) {
    INFO("step " << step);
    set_grads(params, step), set_grads(reference, step);
    optimizer.step();
    per_tensor.step(reference);
    require_same(params, reference, "parameter");
    if (o.momentum != 0.0) require_same(state_of(optimizer, params, "momentum_buffer"), per_tensor.buffers, "buffer");
  }
}

AdamStepParams adam(double weight_decay, bool decoupled, bool amsgrad, bool maximize) {
  AdamStepParams o;
  o.lr = 0.01;
  o.beta1 = 0.9;
  o.beta2 = 0.99;
  o.eps = 1e-6;
  o.weight_decay = weight_decay;
  o.decoupled_weight_decay = decoupled;
  o.amsgrad = amsgrad;
  o.maximize = maximize;
  return o;
}

AdamOptions adam_options(const AdamStepParams& o) {
  return AdamOptions(o.lr)
      .betas({o.beta1, o.beta2})
      .eps(o.eps)
      .weight_decay(o.weight_decay)
      .decoupled_weight_decay(o.decoupled_weight_decay)
      .amsgrad(o.amsgrad)
      .maximize(o.maximize);
}

void check_adam(const std::vector<Tensor>& params, const AdamStepParams& o) {
  std::vector<Tensor> reference = copies(params);
  std::unique_ptr<Adam> optimizer = o.decoupled_weight_decay ? std::make_unique<AdamW>(params, adam_options(o))
                                                             : std::make_unique<Adam>(params, adam_options(o));
  PerTensorAdam per_tensor{o, {}, {}, {}, {}};
  for (uint64_t step = 0; step < 3; ++step) {
    INFO("step " << step);
    set_grads(params, step), set_grads(reference, step);
    optimizer->step();
    per_tensor.step(reference);
    require_same(params, reference, "parameter");
    require_same(state_of(*optimizer, params, "exp_avg"), per_tensor.exp_avg, "exp_avg");
    require_same(state_of(*optimizer, params, "exp_avg_sq"), per_tensor.exp_avg_sq, "exp_avg_sq");
    if (o.amsgrad) require_same(state_of(*optimizer, params, "max_exp_avg_sq"), per_tensor.max_exp_avg_sq, "max");
  }
}

// The kernels the simulated device runs for `work`.
uint64_t sim_kernels(const std::function<void()>& work) {
  sim::reset_kernel_counts();
  work();
  return sim::kernel_counts().run;
}

TEST_CASE("SGD's multi-tensor step equals the per-tensor steps bit for bit over ResNet-20's parameters") {
  const std::pair<const char*, SgdStepParams> cases[] = {
      {"plain", sgd(0, 0, 0, false, false)},
      {"momentum", sgd(0.9, 0, 0, false, false)},
      {"momentum and dampening", sgd(0.9, 0.1, 0, false, false)},
      {"nesterov with weight decay", sgd(0.9, 0, 5e-4, true, false)},
      {"weight decay, maximize", sgd(0, 0, 0.01, false, true)},
      {"nesterov, maximize", sgd(0.8, 0, 0.02, true, true)},
  };
  for (const Place& place : kPlaces) {
    for (const auto& [name, o] : cases) {
      INFO(name << " on " << place.device.str() << " in " << dtype_name(place.dtype));
      check_sgd(resnet20_params(place.device, place.dtype), o);
    }
  }
}

TEST_CASE("Adam's and AdamW's multi-tensor steps equal the per-tensor steps bit for bit over ResNet-20's parameters") {
  const std::pair<const char*, AdamStepParams> cases[] = {
      {"Adam", adam(0, false, false, false)},
      {"Adam, L2 weight decay", adam(0.01, false, false, false)},
      {"Adam, amsgrad", adam(0, false, true, false)},
      {"AdamW", adam(0.01, true, false, false)},
      {"AdamW, amsgrad, maximize", adam(0.05, true, true, true)},
  };
  for (const Place& place : kPlaces) {
    for (const auto& [name, o] : cases) {
      INFO(name << " on " << place.device.str() << " in " << dtype_name(place.dtype));
      check_adam(resnet20_params(place.device, place.dtype), o);
    }
  }
}

TEST_CASE("channels_last parameters take the multi-tensor kernel as they lie") {
  std::vector<Tensor> params = resnet20_params(sim_device(0), kFloat32, MemoryFormat::ChannelsLast);
  check_sgd(params, sgd(0.9, 0, 5e-4, true, false));
  check_adam(params, adam(0.01, true, true, false));
  set_grads(params, 7);
  SGD optimizer(params, SGDOptions(0.1).momentum(0.9));
  CHECK(sim_kernels([&] { optimizer.step(); }) == 1);
}

TEST_CASE("one SGD step of ResNet-20 on the simulated device is one kernel, not one per parameter") {
  std::vector<Tensor> params = resnet20_params(sim_device(0), kFloat32);
  set_grads(params, 1);
  SGD optimizer(params, SGDOptions(0.1).momentum(0.9).weight_decay(5e-4));
  CHECK(sim_kernels([&] { optimizer.step(); }) == 1);  // the first step: new buffers cost no kernel
  CHECK(sim_kernels([&] { optimizer.step(); }) == 1);
  // The per-tensor path: one kernel per parameter.
  PerTensorSgd per_tensor{sgd(0.9, 0, 5e-4, false, false), {}};
  CHECK(sim_kernels([&] { per_tensor.step(params); }) == params.size());
}

TEST_CASE("one Adam step of ResNet-20 on the simulated device is one kernel after the first") {
  std::vector<Tensor> params = resnet20_params(sim_device(0), kFloat32);
  set_grads(params, 1);
  AdamW optimizer(params, AdamWOptions(1e-3).amsgrad(true));
  // The first step fills the three new state buffers of every parameter with zeros.
  CHECK(sim_kernels([&] { optimizer.step(); }) == 3 * params.size() + 1);
  CHECK(sim_kernels([&] { optimizer.step(); }) == 1);
}

TEST_CASE("a group of float32 and float64 parameters is one kernel per dtype") {
  std::vector<Tensor> params = resnet20_params(sim_device(0), kFloat32);
  for (size_t i = 1; i < params.size(); i += 2) params[i] = params[i].to(kFloat64).detach().requires_grad_(true);
  check_sgd(params, sgd(0.9, 0.1, 5e-4, false, false));
  check_adam(params, adam(0.01, false, true, false));
  set_grads(params, 3);
  SGD sgd_optimizer(params, SGDOptions(0.1).momentum(0.9));
  CHECK(sim_kernels([&] { sgd_optimizer.step(); }) == 2);
  Adam adam_optimizer(params);
  adam_optimizer.step();
  CHECK(sim_kernels([&] { adam_optimizer.step(); }) == 2);
}

TEST_CASE("a parameter without a gradient is skipped, and one whose buffer is new joins a group of its own") {
  std::vector<Tensor> params = resnet20_params(sim_device(0), kFloat64);
  std::vector<Tensor> reference = copies(params);
  SGD optimizer(params, SGDOptions(0.05).momentum(0.9));
  PerTensorSgd per_tensor{sgd(0.9, 0, 0, false, false), {}};
  for (uint64_t step = 0; step < 3; ++step) {
    INFO("step " << step);
    set_grads(params, step), set_grads(reference, step);
    if (step == 0) params[5].set_grad(Tensor()), reference[5].set_grad(Tensor());  // its buffer starts at step 1
    const uint64_t kernels = sim_kernels([&] { optimizer.step(); });
    CHECK(kernels == (step == 1 ? 2 : 1));  // at step 1, parameter 5's first step is a call of its own
    per_tensor.step(reference);
    require_same(params, reference, "parameter");
    require_same(state_of(optimizer, params, "momentum_buffer"), per_tensor.buffers, "buffer");
    if (step == 0) CHECK(optimizer.find_state(params[5]) == nullptr);
  }
}

TEST_CASE("a gradient laid out unlike its parameter goes through the per-tensor op") {
  for (const Place& place : kPlaces) {
    INFO(place.device.str() << " in " << dtype_name(place.dtype));
    std::vector<Tensor> params = resnet20_params(place.device, place.dtype);
    std::vector<Tensor> reference = copies(params);
    SGD optimizer(params, SGDOptions(0.05).momentum(0.9).nesterov(true));
    PerTensorSgd per_tensor{sgd(0.9, 0, 0, true, false), {}};
    for (uint64_t step = 0; step < 2; ++step) {
      set_grads(params, step), set_grads(reference, step);
      // The first convolution's weight [16, 3, 3, 3] with a channels_last gradient.
      REQUIRE(params[0].dim() == 4);
      params[0].set_grad(params[0].grad().contiguous(MemoryFormat::ChannelsLast));
      reference[0].set_grad(reference[0].grad().contiguous(MemoryFormat::ChannelsLast));
      const uint64_t kernels = sim_kernels([&] { optimizer.step(); });
      // The others' kernel, then the gradient's copy into the weight's layout and its own.
      if (place.device.is_sim()) CHECK(kernels == 3);
      per_tensor.step(reference);
      require_same(params, reference, "parameter");
      require_same(state_of(optimizer, params, "momentum_buffer"), per_tensor.buffers, "buffer");
    }
  }
}

}  // namespace
}  // namespace brisk::optim
