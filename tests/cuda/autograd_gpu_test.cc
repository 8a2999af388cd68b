// Autograd on CUDA tensors: the same computations as on the CPU, with gradients that stay on
// the parameters' device and match the CPU's.
#include "autograd/ops.h"
#include "tests/cuda/backend_test_util.h"

namespace brisk {
namespace {

using testing::kCuda;
using testing::random_cpu;
using testing::require_matches;

Tensor leaf(const Tensor& values) {
  Tensor t = values.detach();
  t.requires_grad_(true);
  return t;
}

// A two-layer classifier's loss: every op family (matmul, broadcasting add, activations,
// log_softmax, gather, reductions) takes part.
Tensor loss_of(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2, const Tensor& labels) {
  Tensor h = gelu(add(matmul(x, w1), b1));
  Tensor logits = matmul(tanh(h) * sigmoid(h), w2);
  Tensor picked = gather(log_softmax(logits, 1), 1, labels.unsqueeze(1));
  return neg(mean(picked)) + norm(w1) * 1e-3 + logsumexp(logits, {1}).amax() * 1e-2;
}

TEST_CASE("gradients of a small network on CUDA match the CPU's and stay on the device", "[gpu]") {
  Tensor x = random_cpu({64, 20}, kFloat32, 1);
  Tensor labels = random_cpu({64}, kInt64, 2, 0.0, 10.0);
  std::vector<Tensor> params{random_cpu({20, 32}, kFloat32, 3, -0.3, 0.3), random_cpu({32}, kFloat32, 4, -0.1, 0.1),
                             random_cpu({32, 10}, kFloat32, 5, -0.3, 0.3)};
  std::vector<Tensor> cpu, gpu;
  for (const Tensor& p : params) {
    cpu.push_back(leaf(p));
    gpu.push_back(leaf(p.to(kCuda)));
  }
  Tensor cpu_loss = loss_of(x, cpu[0], cpu[1], cpu[2], labels);
  Tensor gpu_loss = loss_of(x.to(kCuda), gpu[0], gpu[1], gpu[2], labels.to(kCuda));
  REQUIRE(gpu_loss.is_cuda());
  require_matches(gpu_loss.detach(), cpu_loss.detach(), {1e-5, 1e-6});
  cpu_loss.backward();
  gpu_loss.backward();
  for (size_t i = 0; i < params.size(); ++i) {
    INFO("parameter " << i);
    REQUIRE(gpu[i].grad().defined());
    CHECK(gpu[i].grad().device() == kCuda);
    require_matches(gpu[i].grad(), cpu[i].grad(), {1e-4, 1e-6});
  }
}

TEST_CASE("gradients flow back across a device copy", "[gpu]") {
  Tensor w = leaf(random_cpu({5, 5}, kFloat64, 6));
  Tensor y = (w.to(kCuda) * 3.0).sum();
  y.backward();
  REQUIRE(w.grad().is_cpu());
  CHECK(native::equal(w.grad(), native::full({5, 5}, 3.0, kFloat64)));
}

TEST_CASE("16-bit gradients on CUDA match the CPU's", "[gpu]") {
  for (DType dtype : {kBFloat16, kFloat16}) {
    INFO(dtype_name(dtype));
    Tensor p = random_cpu({16, 24}, dtype, 7);
    Tensor cpu = leaf(p), gpu = leaf(p.to(kCuda));
    (softmax(cpu, 1) * cpu).sum().backward();
    (softmax(gpu, 1) * gpu).sum().backward();
    CHECK(gpu.grad().dtype() == dtype);
    require_matches(gpu.grad(), cpu.grad(),
                    dtype == kBFloat16 ? testing::Tolerance{5e-2, 5e-2} : testing::Tolerance{1e-2, 1e-2});
  }
}

}  // namespace
}  // namespace brisk
