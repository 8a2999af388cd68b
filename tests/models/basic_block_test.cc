// models::BasicBlock: parameter names, the three shortcuts (identity, zero padding, projection)
// computed on their own by silencing the residual branch, the zero-padding shortcut's kernels
// on sim:0, and the stage builder.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "models/basic_block.h"
#include "nn/functional.h"
#include "tensor/sim/sim_backend.h"
#include "tensor/sim/sim_graph.h"
#include "tests/models/count_parameters.h"

using namespace brisk;
using brisk::test::count_parameters;

namespace {

// bn2's weight and bias zero: the block's output is relu(shortcut(x)).
void silence_residual(models::BasicBlock& block) {
  NoGradGuard no_grad;
  block->bn2->weight.zero_();
  block->bn2->bias.zero_();
}

std::vector<std::string> names(const nn::Module& module) { return module.state_dict().keys(); }

const std::vector<std::string> kBlockNames = {
    "conv1.weight", "bn1.weight", "bn1.bias", "bn1.running_mean", "bn1.running_var", "bn1.num_batches_tracked",
    "conv2.weight", "bn2.weight", "bn2.bias", "bn2.running_mean", "bn2.running_var", "bn2.num_batches_tracked"};

}  // namespace

TEST_CASE("BasicBlock: a block that keeps the shape adds its input; no shortcut parameters") {
  models::BasicBlock block(models::BasicBlockOptions(8, 8));
  REQUIRE(names(*block) == kBlockNames);
  REQUIRE(count_parameters(*block) == 2 * 8 * 8 * 9 + 4 * 8);
  REQUIRE(!block->changes_shape());
  silence_residual(block);
  Tensor x = randn({2, 8, 6, 6});
  REQUIRE(allclose(block(x), x.relu()));
}

TEST_CASE("BasicBlock: the zero-padding shortcut (option A) subsamples and adds zero channels on both sides") {
  models::BasicBlock block(models::BasicBlockOptions(4, 8).stride(2).shortcut(models::Shortcut::ZeroPad));
  REQUIRE(names(*block) == kBlockNames);
  REQUIRE(block->changes_shape());
  silence_residual(block);
  Tensor x = randn({2, 4, 6, 6}, TensorOptions().requires_grad(true));
  Tensor out = block(x);
  REQUIRE(out.sizes() == Shape{2, 8, 3, 3});
  Tensor sub = x.detach().slice(2, 0, std::nullopt, 2).slice(3, 0, std::nullopt, 2);
  REQUIRE(equal(out.narrow(1, 0, 2), zeros({2, 2, 3, 3})));
  REQUIRE(equal(out.narrow(1, 2, 4), sub.relu()));
  REQUIRE(equal(out.narrow(1, 6, 2), zeros({2, 2, 3, 3})));
  out.sum().backward();
  REQUIRE(x.grad().sizes() == x.sizes());
  // The gradient reaches exactly the subsampled positions where relu passed.
  Tensor passed = gt(sub, zeros_like(sub)).to(kFloat32);
  REQUIRE(equal(x.grad().slice(2, 0, std::nullopt, 2).slice(3, 0, std::nullopt, 2), passed));
  REQUIRE(x.grad().abs().sum().item<float>() == passed.sum().item<float>());
}

TEST_CASE("BasicBlock: the zero-padding shortcut's forward is two kernels on sim (F::pad's fill and copy)") {
  const Device sim0 = sim_device(0);
  // The kernels of a training forward; the identity block's shortcut is its input, no kernel.
  auto forward_kernels = [&](models::BasicBlockOptions options, const Shape& input) {
    models::BasicBlock block(options.shortcut(models::Shortcut::ZeroPad));
    block->to(sim0);
    Tensor x = randn(input).to(sim0);
    sim::reset_kernel_counts();
    block(x);
    return sim::kernel_counts().run;
  };
  const uint64_t zero_pad = forward_kernels(models::BasicBlockOptions(4, 8).stride(2), {2, 4, 6, 6});
  const uint64_t identity = forward_kernels(models::BasicBlockOptions(8, 8), {2, 8, 3, 3});
  CHECK(zero_pad - identity == 2);  // was 5: slices, two zeros and cat
}

TEST_CASE("BasicBlock: the projection shortcut (option B) is a strided 1x1 convolution and a BN") {
  models::BasicBlock block(models::BasicBlockOptions(4, 8).stride(2));
  std::vector<std::string> want = kBlockNames;
  for (std::string name : {"shortcut.0.weight", "shortcut.1.weight", "shortcut.1.bias", "shortcut.1.running_mean",
                           "shortcut.1.running_var", "shortcut.1.num_batches_tracked"}) {
    want.push_back(name);
  }
  REQUIRE(names(*block) == want);
  REQUIRE(block->state_dict()["shortcut.0.weight"].sizes() == Shape{8, 4, 1, 1});
  silence_residual(block);
  block->eval();  // the shortcut's BN with its initial running statistics: x / sqrt(1 + eps)
  Tensor x = randn({2, 4, 6, 6});
  Tensor projected = nn::functional::conv2d(x, block->state_dict()["shortcut.0.weight"], Tensor(), 2);
  REQUIRE(allclose(block(x), projected.div(std::sqrt(1.0 + 1e-5)).relu(), 1e-5, 1e-6));
}

TEST_CASE("BasicBlock: checks its options") {
  REQUIRE_THROWS_WITH(models::BasicBlock(models::BasicBlockOptions(8, 4).shortcut(models::Shortcut::ZeroPad)),
                      Catch::Contains("cannot reduce channels (8 -> 4)"));
  REQUIRE_THROWS_WITH(models::BasicBlock(models::BasicBlockOptions(8, 8).stride(0)), Catch::Contains("stride 0"));
}

TEST_CASE("basic_block_stage: the first block changes the shape, the others keep it") {
  nn::Sequential stage = models::basic_block_stage(3, 16, 32, 2, models::Shortcut::Projection);
  REQUIRE(stage->size() == 3);
  REQUIRE(stage->at<models::BasicBlockImpl>(0).changes_shape());
  REQUIRE(!stage->at<models::BasicBlockImpl>(1).changes_shape());
  REQUIRE(stage->state_dict().contains("0.shortcut.0.weight"));
  REQUIRE(!stage->state_dict().contains("1.shortcut.0.weight"));
  REQUIRE(stage(randn({1, 16, 8, 8})).sizes() == Shape{1, 32, 4, 4});
  REQUIRE_THROWS_WITH(models::basic_block_stage(0, 16, 32, 2, models::Shortcut::ZeroPad),
                      Catch::Contains("at least one block"));
}
