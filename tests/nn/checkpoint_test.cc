// Activation checkpointing (nn/utils/checkpoint.h): gradients equal to the plain run, the same
// dropout masks, the errors, and the measured drop of peak memory. Under DDP: ddp_checkpoint_test.
#include <catch2/catch.hpp>

#include <iostream>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "autograd/saved_tensors_hooks.h"
#include "nn/nn.h"
#include "nn/utils/checkpoint.h"
#include "tensor/memory.h"

namespace brisk::nn {
namespace {

using Catch::Matchers::Contains;

// Linear/Tanh/Dropout/ReLU blocks, float64, seeded.
Sequential make_mlp(int blocks, int64_t width, double dropout, uint64_t seed) {
  manual_seed(seed);
  Sequential net;
  for (int i = 0; i < blocks; ++i) {
    net->push_back(Linear(width, width));
    if (i % 2 == 0) {
      net->push_back(Tanh());
    } else {
      net->push_back(ReLU());
    }
    if (dropout > 0) net->push_back(Dropout(dropout));
  }
  net->to(kFloat64);
  return net;
}

std::vector<Tensor> grads_of(const Sequential& net, const Tensor& x) {
  std::vector<Tensor> grads;
  for (const Tensor& p : net->parameters()) grads.push_back(p.grad());
  grads.push_back(x.grad());
  return grads;
}

void check_equal(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("gradient " << i);
    REQUIRE(a[i].defined());
    CHECK(equal(a[i], b[i]));
  }
}

// The gradients of sum(out^2) for net on x, run plainly or by `run`; the generator is seeded
// the same way before each.
template <typename Run>
std::vector<Tensor> gradients(const Sequential& net, const Tensor& input, uint64_t seed, Run run) {
  net->zero_grad();
  Tensor x = input.detach().requires_grad_(true);
  manual_seed(seed);
  Tensor out = run(x);
  (out * out).sum().backward();
  return grads_of(net, x);
}

TEST_CASE("checkpoint gives the plain run's gradients, bitwise") {
  Sequential net = make_mlp(4, 16, 0.0, 1);
  Tensor x = randn({8, 16}, TensorOptions().dtype(kFloat64));
  auto plain = gradients(net, x, 7, [&](const Tensor& in) { return net(in); });
  auto checkpointed = gradients(
      net, x, 7, [&](const Tensor& in) { return utils::checkpoint([&](const Tensor& t) { return net(t); }, in); });
  check_equal(plain, checkpointed);
}

TEST_CASE("under autocast the recomputation runs at the forward's precisions") {
  Sequential net = make_mlp(3, 16, 0.0, 1);
  net->to(kFloat32);
  Tensor x = randn({8, 16});
  auto under_autocast = [&](auto body) {
    return [&net, body](const Tensor& in) {
      autocast guard(kCPU, kBFloat16);
      Tensor out = body(in);
      CHECK(out.dtype() == kBFloat16);  // the last Linear ran in bfloat16
      return out.to(kFloat32);
    };
  };
  auto plain = gradients(net, x, 7, under_autocast([&](const Tensor& in) { return net(in); }));
  auto checkpointed = gradients(net, x, 7, under_autocast([&](const Tensor& in) {
                                  return utils::checkpoint([&](const Tensor& t) { return net(t); }, in);
                                }));
  // Recomputed in float32 (autocast off, as backward runs), the saved activations would differ
  // in dtype from the forward's and the recomputation check would refuse them.
  check_equal(plain, checkpointed);
}

TEST_CASE("several inputs and outputs, and an input that needs no gradient") {
  Linear fc(6, 6);
  fc->to(kFloat64);
  Tensor a = randn({3, 6}, TensorOptions().dtype(kFloat64)).requires_grad_(true);
  Tensor b = randn({3, 6}, TensorOptions().dtype(kFloat64));
  auto fn = [&](const utils::TensorList& in) { return utils::TensorList{tanh(fc(in[0]) * in[1]), exp(in[0]).sum()}; };
  auto loss = [](const utils::TensorList& out) { return (out[0] * out[0]).sum() + out[1]; };

  loss(fn({a, b})).backward();
  Tensor ga = a.grad(), gw = fc->weight.grad();
  a.set_grad(Tensor());
  fc->zero_grad();
  loss(utils::checkpoint(fn, {a, b})).backward();
  CHECK(equal(a.grad(), ga));
  CHECK(equal(fc->weight.grad(), gw));
  CHECK_FALSE(b.grad().defined());
}

TEST_CASE("dropout draws the forward's masks when recomputed, and the generator ends where the plain run's does") {
  Sequential net = make_mlp(3, 32, 0.5, 2);
  Tensor x = randn({16, 32}, TensorOptions().dtype(kFloat64));
  Generator::State after_plain, after_checkpointed;
  auto plain = gradients(net, x, 11, [&](const Tensor& in) {
    Tensor out = net(in);
    after_plain = default_generator().get_state();
    return out;
  });
  auto checkpointed = gradients(net, x, 11, [&](const Tensor& in) {
    Tensor out = utils::checkpoint([&](const Tensor& t) { return net(t); }, in);
    after_checkpointed = default_generator().get_state();
    return out;
  });
  check_equal(plain, checkpointed);
  CHECK(after_plain.offset == after_checkpointed.offset);
  // Backward left the generator where the forward did.
  CHECK(default_generator().get_state().offset == after_checkpointed.offset);

  // Without preserve_rng_state the recomputation draws new masks: the gradients differ.
  auto unpreserved = gradients(net, x, 11, [&](const Tensor& in) {
    return utils::checkpoint([&](const Tensor& t) { return net(t); }, in, /*preserve_rng_state=*/false);
  });
  CHECK_FALSE(equal(plain[0], unpreserved[0]));
}

TEST_CASE("checkpoint_sequential gives the plain run's gradients for every number of segments") {
  Sequential net = make_mlp(3, 8, 0.25, 3);  // 9 modules
  Tensor x = randn({5, 8}, TensorOptions().dtype(kFloat64));
  auto plain = gradients(net, x, 5, [&](const Tensor& in) { return net(in); });
  for (int segments = 1; segments <= 9; ++segments) {
    INFO(segments << " segments");
    auto checkpointed =
        gradients(net, x, 5, [&](const Tensor& in) { return utils::checkpoint_sequential(*net, segments, in); });
    check_equal(plain, checkpointed);
  }
  CHECK_THROWS_WITH(utils::checkpoint_sequential(*net, 0, x), Contains("0 segments asked of a Sequential of 9"));
  CHECK_THROWS_WITH(utils::checkpoint_sequential(*net, 10, x), Contains("(1 to 9 possible)"));
}

TEST_CASE("a second backward with retain_graph recomputes again; nested checkpoints give the same gradients") {
  Sequential net = make_mlp(4, 8, 0.0, 4);
  Tensor x = randn({4, 8}, TensorOptions().dtype(kFloat64));
  auto plain = gradients(net, x, 1, [&](const Tensor& in) { return net(in); });

  net->zero_grad();
  Tensor xr = x.detach().requires_grad_(true);
  Tensor out = utils::checkpoint([&](const Tensor& t) { return net(t); }, xr);
  Tensor loss = (out * out).sum();
  loss.backward(Tensor(), /*retain_graph=*/true);
  loss.backward();
  for (size_t i = 0; i < net->parameters().size(); ++i) CHECK(allclose(net->parameters()[i].grad(), plain[i] * 2.0));

  auto nested = gradients(net, x, 1, [&](const Tensor& in) {
    return utils::checkpoint(
        [&](const Tensor& t) {
          Tensor h = utils::checkpoint([&](const Tensor& u) { return net->forward_range(0, 4, u); }, t);
          return net->forward_range(4, 8, h);
        },
        in);
  });
  check_equal(plain, nested);
}

TEST_CASE("what the recomputation cannot reproduce is an error, not a wrong gradient") {
  Linear fc(4, 4);
  fc->to(kFloat64);
  Tensor x = randn({2, 4}, TensorOptions().dtype(kFloat64)).requires_grad_(true);

  SECTION("an input modified in place after the forward") {
    Tensor input = x * 1.0;
    Tensor out = utils::checkpoint([&](const Tensor& t) { return fc(t); }, input);
    {
      NoGradGuard no_grad;
      input.add_(1.0);
    }
    CHECK_THROWS_WITH(out.sum().backward(), Contains("checkpoint: input 0") && Contains("modified in place"));
  }
  SECTION("a function that does different work the second time") {
    int calls = 0;
    Tensor out = utils::checkpoint(
        [&](const Tensor& t) {
          Tensor h = fc(t);
          return ++calls == 1 ? tanh(h) : h;
        },
        x);
    CHECK_THROWS_WITH(out.sum().backward(), Contains("the recomputation saved 2 tensors for backward, the forward 3"));
  }
}

TEST_CASE("saved-tensor hooks see every saved tensor, and backward gets what unpack returns") {
  Tensor x = randn({3}, TensorOptions().dtype(kFloat64)).requires_grad_(true);
  int packed = 0, unpacked = 0;
  Tensor y;
  {
    autograd::SavedTensorsHooks hooks(
        [&](const Tensor& t) -> std::any {
          ++packed;
          return t * 2.0;  // backward sees twice the saved value
        },
        [&](const std::any& p) {
          ++unpacked;
          return std::any_cast<Tensor>(p);
        });
    y = (x * x).sum();
  }
  CHECK(packed == 2);  // mul saves both operands
  y.backward();
  CHECK(unpacked == 2);
  CHECK(allclose(x.grad(), x * 4.0));  // grad * other, each operand doubled
}

// A deep MLP (float32, batch 1024, width 256, 24 blocks): the peak of CPU memory over a
// forward and backward, above what was allocated before it.
size_t step_peak(const Sequential& net, const Tensor& x, int segments) {
  net->zero_grad();
  const size_t before = memory_allocated(kCPU);
  reset_peak_memory_stats(kCPU);
  Tensor out = segments == 0 ? net(x) : utils::checkpoint_sequential(*net, segments, x);
  out.sum().backward();
  return max_memory_allocated(kCPU) - before;
}

TEST_CASE("checkpointing a deep MLP lowers the peak memory of a step") {
  manual_seed(0);
  Sequential net;
  for (int i = 0; i < 24; ++i) {
    net->push_back(Linear(256, 256));
    net->push_back(ReLU());
  }
  Tensor x = randn({1024, 256});
  step_peak(net, x, 0);  // gradients allocated once, so both runs start alike
  const size_t plain = step_peak(net, x, 0);
  const size_t segments6 = step_peak(net, x, 6);
  const size_t segments2 = step_peak(net, x, 2);
  std::cout << "deep MLP step, peak CPU memory above the start: plain " << format_bytes(plain)
            << ", checkpoint_sequential 2 segments " << format_bytes(segments2) << ", 6 segments "
            << format_bytes(segments6) << "\n";
  // Plain keeps 24 activations of 1 MiB (each ReLU's output, also the next Linear's input);
  // with 6 segments of 4 blocks: the 5 checkpointed segments' inputs, the last segment's 4
  // activations and one segment's 4 recomputed at a time (measured: 26.25 MiB and 12.02 MiB).
  CHECK(segments6 < plain * 6 / 10);
  CHECK(segments2 < plain);
}

}  // namespace
}  // namespace brisk::nn
