// nn on CUDA against the CPU: each module copied to the GPU (load_state_dict, then Module::to)
// gives the CPU module's output, input gradient, parameter gradients (which land on the GPU,
// the parameters' device) and buffers; the losses give the same values and gradients.
#include <cmath>
#include <functional>
#include <string>

#include "autograd/ops.h"
#include "nn/nn.h"
#include "tests/cuda/backend_test_util.h"

namespace brisk::nn {
namespace {

namespace F = functional;
using testing::kCuda;
using testing::on_gpu;
using testing::random_cpu;
using testing::require_matches;
using testing::Tolerance;

Tolerance tolerance(DType dtype) { return dtype == kFloat64 ? Tolerance{1e-10, 1e-12} : Tolerance{1e-4, 1e-5}; }

// `cpu` and `gpu` are two instances of one module; `gpu` takes `cpu`'s state and moves to the
// GPU. Both run on `input` (floating inputs also get a gradient) and backward with the same
// upstream gradient.
template <typename Holder>
void check_module(const std::string& what, Holder cpu, Holder gpu, const Tensor& input, DType dtype, bool training) {
  INFO(what << " in " << dtype_name(dtype) << (training ? ", training" : ", eval"));
  const Tolerance tol = tolerance(dtype);
  cpu->to(dtype);
  gpu->to(dtype);
  gpu->load_state_dict(cpu->state_dict());
  gpu->to(kCuda);
  cpu->train(training);
  gpu->train(training);
  for (const Tensor& p : gpu->parameters()) REQUIRE(p.is_cuda());

  Tensor x = input, gx = on_gpu(input);
  if (input.is_floating_point()) {
    x.requires_grad_();
    gx.requires_grad_();
  }
  Tensor y = cpu(x), gy = gpu(gx);
  require_matches(gy, y, tol);
  Tensor upstream = random_cpu(y.sizes(), dtype, 99);
  y.backward(upstream);
  gy.backward(on_gpu(upstream));

  if (input.is_floating_point()) {
    INFO("the input's gradient");
    require_matches(gx.grad(), x.grad(), tol);
  }
  StateDict gpu_params = gpu->named_parameters(), gpu_buffers = gpu->named_buffers();
  for (const auto& [name, p] : cpu->named_parameters()) {
    INFO("the gradient of " << name);
    require_matches(gpu_params[name].grad(), p.grad(), tol);
  }
  for (const auto& [name, b] : cpu->named_buffers()) {
    INFO("buffer " << name);
    require_matches(gpu_buffers[name], b, tol);
  }
}

TEST_CASE("modules on CUDA match the CPU: forward, backward, parameter gradients, buffers", "[gpu]") {
  for (DType dtype : {kFloat32, kFloat64}) {
    check_module("Linear", Linear(5, 3), Linear(5, 3), random_cpu({4, 5}, dtype, 1), dtype, true);
    auto conv = [] { return Conv2d(Conv2dOptions(3, 4, 3).stride(2).padding(1)); };
    check_module("Conv2d", conv(), conv(), random_cpu({2, 3, 7, 6}, dtype, 2), dtype, true);
    for (bool training : {true, false}) {
      check_module("BatchNorm2d", BatchNorm2d(3), BatchNorm2d(3), random_cpu({4, 3, 5, 5}, dtype, 3), dtype, training);
    }
    auto layer_norm = [] { return LayerNorm(LayerNormOptions({6})); };
    check_module("LayerNorm", layer_norm(), layer_norm(), random_cpu({3, 4, 6}, dtype, 4), dtype, true);
    check_module("Embedding", Embedding(10, 4), Embedding(10, 4), random_cpu({2, 3}, kInt64, 5, 0, 10), dtype, true);
    check_module("Dropout", Dropout(0.3), Dropout(0.3), random_cpu({4, 5}, dtype, 6), dtype, false);
    auto conv1d = [] { return Conv1d(Conv1dOptions(4, 6, 3).stride(2).padding(1).groups(2)); };
    check_module("Conv1d", conv1d(), conv1d(), random_cpu({2, 4, 9}, dtype, 7), dtype, true);
    auto conv_transpose = [] {
      return ConvTranspose2d(ConvTranspose2dOptions(4, 6, 3).stride(2).padding(1).output_padding(1).groups(2));
    };
    check_module("ConvTranspose2d", conv_transpose(), conv_transpose(), random_cpu({2, 4, 5, 4}, dtype, 8), dtype,
                 true);
    auto conv_transpose_past_stride = [] {
      return ConvTranspose2d(ConvTranspose2dOptions(2, 3, 2).output_padding(2).dilation(3));
    };
    check_module("ConvTranspose2d with output_padding past the stride", conv_transpose_past_stride(),
                 conv_transpose_past_stride(), random_cpu({2, 2, 4, 3}, dtype, 9), dtype, true);
    check_module("GroupNorm", GroupNorm(3, 6), GroupNorm(3, 6), random_cpu({2, 6, 4, 5}, dtype, 10), dtype, true);
    for (const UpsampleOptions& options : {UpsampleOptions().scale_factor({2}), UpsampleOptions().size({5, 9}),
                                           UpsampleOptions().scale_factor({1.5, 2}).mode("bilinear"),
                                           UpsampleOptions().size({7, 3}).mode("bilinear").align_corners(true)}) {
      check_module("Upsample", Upsample(options), Upsample(options), random_cpu({2, 3, 4, 6}, dtype, 11), dtype, true);
    }
    check_module("Dropout2d", Dropout2d(0.3), Dropout2d(0.3), random_cpu({4, 5, 3, 2}, dtype, 7), dtype, false);
    check_module("LeakyReLU", LeakyReLU(0.2), LeakyReLU(0.2), random_cpu({4, 5}, dtype, 8), dtype, true);
    check_module("ELU", ELU(0.5), ELU(0.5), random_cpu({4, 5}, dtype, 9), dtype, true);
    check_module("Softplus", Softplus(2.0, 1.0), Softplus(2.0, 1.0), random_cpu({4, 5}, dtype, 10), dtype, true);
    check_module("Hardswish", Hardswish(), Hardswish(), random_cpu({4, 5}, dtype, 11, -5.0, 5.0), dtype, true);
  }
}

// `loss(input, device)` on a CPU input and on its GPU copy (the loss moves its other operands
// to `device`): the values and the input's gradients match.
void check_loss(const std::string& what, DType dtype, const std::function<Tensor(const Tensor&, Device)>& loss,
                const Tensor& input) {
  INFO(what << " in " << dtype_name(dtype));
  const Tolerance tol = tolerance(dtype);
  Tensor x = input, gx = on_gpu(input);
  x.requires_grad_();
  gx.requires_grad_();
  Tensor y = loss(x, kCPU), gy = loss(gx, kCuda);
  require_matches(gy, y, tol);
  Tensor upstream = random_cpu(y.sizes(), dtype, 98);
  y.backward(upstream);
  gy.backward(on_gpu(upstream));
  INFO("the input's gradient");
  require_matches(gx.grad(), x.grad(), tol);
}

TEST_CASE("cross_entropy (class indices and probabilities), nll_loss and mse_loss on CUDA match the CPU", "[gpu]") {
  const Tensor target = tensor<int64_t>({1, -100, 4, 0, 3, 3}, {6});
  for (DType dtype : {kFloat32, kFloat64}) {
    const Tensor weight = random_cpu({5}, dtype, 3, 0.5, 1.5), mse_target = random_cpu({6, 5}, dtype, 4);
    const Tensor probabilities = F::softmax(random_cpu({6, 5}, dtype, 7), 1);
    for (Reduction reduction : {Reduction::Mean, Reduction::Sum, Reduction::None}) {
      INFO("reduction " << static_cast<int>(reduction) << " (0 none, 1 mean, 2 sum)");
      check_loss(
          "cross_entropy with weights and label smoothing", dtype,
          [&](const Tensor& x, Device d) {
            return F::cross_entropy(x, target.to(d), weight.to(d), -100, reduction, 0.1);
          },
          random_cpu({6, 5}, dtype, 1));
      check_loss(
          "nll_loss of log_softmax", dtype,
          [&](const Tensor& x, Device d) {
            return F::nll_loss(F::log_softmax(x, 1), target.to(d), weight.to(d), -100, reduction);
          },
          random_cpu({6, 5}, dtype, 2));
      check_loss(
          "cross_entropy with class probabilities", dtype,
          [&](const Tensor& x, Device d) {
            return F::cross_entropy(x, probabilities.to(d), weight.to(d), -100, reduction, 0.1);
          },
          random_cpu({6, 5}, dtype, 6));
      check_loss(
          "mse_loss", dtype, [&](const Tensor& x, Device d) { return F::mse_loss(x, mse_target.to(d), reduction); },
          random_cpu({6, 5}, dtype, 5));
    }
  }
}

TEST_CASE("the fused nll_loss on CUDA matches the CPU: [N, C] and [N, C, H, W], ignore_index, 16-bit floats", "[gpu]") {
  const Tensor target = tensor<int64_t>({1, 2, 4, 0, 3, 2}, {6});
  const Tensor spatial_target = tensor<int64_t>({0, 2, 2, 4, 1, 0, 4, 1, 3, 3, 0, 4}, {2, 3, 2});
  for (DType dtype : {kFloat32, kFloat64, kBFloat16, kFloat16}) {
    // The 16-bit floats: log_softmax and nll_loss in that dtype (no autocast), sums in float32.
    const Tolerance tol = dtype == kBFloat16  ? Tolerance{2e-2, 2e-2}
                          : dtype == kFloat16 ? Tolerance{5e-3, 5e-3}
                                              : tolerance(dtype);
    const Tensor weight = random_cpu({5}, dtype, 3, 0.5, 1.5);
    for (Reduction reduction : {Reduction::Mean, Reduction::Sum, Reduction::None}) {
      INFO(dtype_name(dtype) << ", reduction " << static_cast<int>(reduction) << " (0 none, 1 mean, 2 sum)");
      for (bool spatial : {false, true}) {
        INFO((spatial ? "[N, C, H, W]" : "[N, C]"));
        Tensor x = random_cpu(spatial ? Shape{2, 5, 3, 2} : Shape{6, 5}, dtype, 11);
        Tensor gx = on_gpu(x);
        x.requires_grad_();
        gx.requires_grad_();
        const Tensor& t = spatial ? spatial_target : target;
        Tensor y = F::cross_entropy(x, t, weight, 4, reduction);
        Tensor gy = F::cross_entropy(gx, on_gpu(t), on_gpu(weight), 4, reduction);
        require_matches(gy, y, tol);
        Tensor upstream = random_cpu(y.sizes(), dtype, 98);
        y.backward(upstream);
        gy.backward(on_gpu(upstream));
        require_matches(gx.grad(), x.grad(), tol);
      }
    }
  }
  // Every target ignored: the mean is NaN on both, the gradient zero.
  Tensor ignored = on_gpu(tensor<int64_t>({-100, -100}, {2}));
  CHECK(std::isnan(F::cross_entropy(on_gpu(random_cpu({2, 5}, kFloat32, 1)), ignored).item<float>()));
}

TEST_CASE("a bad target on CUDA counts as ignored and is reported by check_deferred_targets", "[gpu]") {
  F::check_deferred_targets();
  Tensor logits = random_cpu({3, 4}, kFloat32, 12);
  Tensor loss = F::cross_entropy(on_gpu(logits), on_gpu(tensor<int64_t>({0, 9, 1}, {3})));
  Tensor as_ignored = F::cross_entropy(logits, tensor<int64_t>({0, -100, 1}, {3}));
  require_matches(loss, as_ignored, tolerance(kFloat32));
  CHECK_THROWS_WITH(F::check_deferred_targets(),
                    Catch::Contains("cross_entropy: target 9 is out of bounds for 4 classes (ignore_index -100)") &&
                        Catch::Contains("element 1 of the target of call 1 of 1"));
}

}  // namespace
}  // namespace brisk::nn
