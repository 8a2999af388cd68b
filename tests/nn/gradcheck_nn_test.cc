// gradcheck (float64, central differences) of the nn ops with hand-written backwards or
// composite gradients worth checking: linear, pad, conv2d, conv1d and conv_transpose2d across
// their geometry, the pools, batch_norm in training and eval (its own backward kernel, and for
// double backward its gradient written with differentiable ops) with and without a fused
// relu/gelu, on NCHW and channels_last inputs, add_relu, layer_norm, group_norm,
// cross_entropy with label smoothing and ignore_index, embedding, interpolate. The
// ops whose backward is itself recorded also pass gradgradcheck. gradcheck_nn_gpu_test runs
// the same checks on CUDA tensors.
#include <catch2/catch.hpp>

#include "autograd/grad_mode.h"
#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "nn/functional.h"
#include "tests/test_device.h"

namespace brisk::nn {
namespace {

namespace F = functional;
using autograd::gradcheck;
using autograd::gradgradcheck;
using TensorList = std::vector<Tensor>;
using test::on_test_device;
using test::test_device;

test::LeafMaker leaf(77);

struct ConvCase {
  const char* name;
  Shape input, weight;
  Size2 stride, padding, dilation;
  int64_t groups;
  bool bias;
};

TEST_CASE("gradcheck: conv2d over stride, padding, dilation and groups") {
  const ConvCase cases[] = {
      {"plain", {2, 2, 5, 4}, {3, 2, 3, 3}, 1, 0, 1, 1, true},
      {"stride and padding", {1, 2, 6, 5}, {2, 2, 3, 2}, {2, 1}, {1, 2}, 1, 1, true},
      {"dilation", {1, 1, 7, 7}, {2, 1, 2, 3}, 1, 1, {2, 3}, 1, false},
      {"groups", {2, 4, 4, 4}, {6, 2, 2, 2}, {1, 2}, 1, 1, 2, true},
      {"depthwise with everything", {1, 3, 6, 6}, {3, 1, 3, 3}, 2, 1, 2, 3, true},
      {"pointwise", {2, 3, 3, 2}, {2, 3, 1, 1}, 1, 0, 1, 1, true},
      {"unbatched", {2, 4, 4}, {2, 2, 2, 2}, 1, 1, 1, 1, true},
  };
  for (const ConvCase& c : cases) {
    DYNAMIC_SECTION(c.name) {
      TensorList inputs{leaf(c.input), leaf(c.weight, 0.5)};
      if (c.bias) inputs.push_back(leaf({c.weight[0]}));
      auto fn = [&](const TensorList& in) {
        return F::conv2d(in[0], in[1], in.size() > 2 ? in[2] : Tensor(), c.stride, c.padding, c.dilation, c.groups);
      };
      CHECK(gradcheck(fn, inputs));
      CHECK(gradgradcheck(fn, inputs));
    }
  }
}

TEST_CASE("gradcheck: linear with and without bias, on 1-D, 2-D and 3-D inputs") {
  for (const Shape& input : {Shape{3}, Shape{4, 3}, Shape{2, 5, 3}}) {
    for (bool bias : {true, false}) {
      DYNAMIC_SECTION(input.size() << "-D input" << (bias ? ", bias" : ", no bias")) {
        TensorList inputs{leaf(input), leaf({2, 3}, 0.5)};
        if (bias) inputs.push_back(leaf({2}));
        auto fn = [](const TensorList& in) { return F::linear(in[0], in[1], in.size() > 2 ? in[2] : Tensor()); };
        CHECK(gradcheck(fn, inputs));
        CHECK(gradgradcheck(fn, inputs));
      }
    }
  }
}

TEST_CASE("gradcheck: pad, adding and cropping") {
  const std::pair<Shape, std::vector<int64_t>> cases[] = {
      {{2, 3, 4}, {1, 2}},
      {{2, 3, 2, 3}, {0, 0, 0, 0, 1, 2}},
      {{2, 3, 4, 5}, {-1, 2, 0, -2}},
      {{3, 6}, {-1, -2, -1, 0}},
  };
  for (const auto& [shape, pad] : cases) {
    DYNAMIC_SECTION(shape.size() << "-D input, " << pad.size() / 2 << " dims padded, from " << pad[0]) {
      auto fn = [pad = pad](const TensorList& in) { return F::pad(in[0], pad, 0.5); };
      CHECK(gradcheck(fn, {leaf(shape)}));
      CHECK(gradgradcheck(fn, {leaf(shape)}));
    }
  }
}

TEST_CASE("gradcheck: max_pool2d, avg_pool2d and adaptive_avg_pool2d") {
  // Well-separated values keep every window's argmax stable under the finite differences.
  Tensor x;
  {
    NoGradGuard no_grad;
    x = on_test_device(randperm(2 * 2 * 7 * 6, &leaf.generator(), kFloat64).view({2, 2, 7, 6}) * 0.1)
            .detach()
            .requires_grad_();
  }
  SECTION("max_pool2d") {
    auto fn = [](const TensorList& in) { return F::max_pool2d(in[0], {3, 2}, Size2(2, 1), 1, {1, 2}, true); };
    CHECK(gradcheck(fn, {x}));
    CHECK(gradgradcheck(fn, {x}));
  }
  SECTION("avg_pool2d counting padding") {
    auto fn = [](const TensorList& in) { return F::avg_pool2d(in[0], 3, 2, 1, true, true); };
    CHECK(gradcheck(fn, {x}));
    CHECK(gradgradcheck(fn, {x}));
  }
  SECTION("avg_pool2d excluding padding, with a divisor") {
    CHECK(gradcheck([](const TensorList& in) { return F::avg_pool2d(in[0], {2, 3}, 1, {1, 1}, false, false); }, {x}));
    CHECK(
        gradcheck([](const TensorList& in) { return F::avg_pool2d(in[0], 2, std::nullopt, 0, false, true, 3); }, {x}));
  }
  SECTION("adaptive_avg_pool2d") {
    auto fn = [](const TensorList& in) { return F::adaptive_avg_pool2d(in[0], {3, 4}); };
    CHECK(gradcheck(fn, {x}));
    CHECK(gradgradcheck(fn, {x}));
    CHECK(gradcheck([](const TensorList& in) { return F::adaptive_avg_pool2d(in[0], {9, 8}); }, {x}));
  }
}

TEST_CASE("gradcheck: batch_norm in training and eval, layer_norm") {
  Tensor x = leaf({4, 3, 2, 2}, 2.0), weight = leaf({3}), bias = leaf({3});
  SECTION("batch_norm training") {
    auto fn = [](const TensorList& in) {
      const TensorOptions options = TensorOptions(kFloat64).device(test_device());
      Tensor rm = zeros({3}, options), rv = ones({3}, options);
      return F::batch_norm(in[0], rm, rv, in[1], in[2], true, 0.1, 1e-5);
    };
    CHECK(gradcheck(fn, {x, weight, bias}));
    CHECK(gradgradcheck(fn, {x, weight, bias}));
  }
  SECTION("batch_norm 2-D input without affine") {
    auto fn = [](const TensorList& in) { return F::batch_norm(in[0], Tensor(), Tensor(), Tensor(), Tensor(), true); };
    CHECK(gradcheck(fn, {leaf({5, 3})}));
    CHECK(gradgradcheck(fn, {leaf({5, 3})}));
  }
  SECTION("batch_norm eval") {
    Tensor rm = on_test_device(randn({3}, kFloat64, &leaf.generator())),
           rv = on_test_device(rand({3}, kFloat64, &leaf.generator()) + 0.5);
    auto fn = [&](const TensorList& in) { return F::batch_norm(in[0], rm, rv, in[1], in[2], false, 0.1, 1e-5); };
    CHECK(gradcheck(fn, {x, weight, bias}));
    CHECK(gradgradcheck(fn, {x, weight, bias}));
  }
  SECTION("layer_norm") {
    Tensor w = leaf({2, 2}), b = leaf({2, 2});
    CHECK(gradcheck([](const TensorList& in) { return F::layer_norm(in[0], {2, 2}, in[1], in[2], 1e-5); }, {x, w, b}));
  }
}

// x [N, C, H, W] as the same values laid out channels_last (strides (H*W*C, 1, W*C, C)),
// differentiably.
Tensor channels_last(const Tensor& x) { return x.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2}); }

TEST_CASE("gradcheck: batch_norm with a fused relu or gelu, NCHW and channels_last, training and eval") {
  Tensor x = leaf({4, 3, 2, 3}, 2.0), weight = leaf({3}), bias = leaf({3});
  Tensor rm = on_test_device(randn({3}, kFloat64, &leaf.generator())),
         rv = on_test_device(rand({3}, kFloat64, &leaf.generator()) + 0.5);
  for (FusedActivation activation : {FusedActivation::Relu, FusedActivation::Gelu}) {
    for (bool nhwc : {false, true}) {
      for (bool training : {true, false}) {
        INFO(fused_activation_name(activation)
             << (nhwc ? ", channels_last" : ", NCHW") << (training ? ", training" : ", eval"));
        auto fn = [&](const TensorList& in) {
          const TensorOptions options = TensorOptions(kFloat64).device(test_device());
          Tensor running_mean = training ? zeros({3}, options) : rm, running_var = training ? ones({3}, options) : rv;
          Tensor input = nhwc ? channels_last(in[0]) : in[0];
          return F::batch_norm(input, running_mean, running_var, in[1], in[2], training, 0.1, 1e-5, activation);
        };
        CHECK(gradcheck(fn, {x, weight, bias}));
        CHECK(gradgradcheck(fn, {x, weight, bias}));
      }
    }
  }
}

TEST_CASE("gradcheck: add_relu of two tensors and of a broadcast bias") {
  CHECK(gradcheck([](const TensorList& in) { return F::add_relu(in[0], in[1]); }, {leaf({3, 4}), leaf({3, 4})}));
  CHECK(
      gradcheck([](const TensorList& in) { return F::add_relu(in[0], in[1]); }, {leaf({2, 3, 2, 2}), leaf({3, 1, 1})}));
  CHECK(gradgradcheck([](const TensorList& in) { return F::add_relu(in[0], in[1]); }, {leaf({3, 4}), leaf({4})}));
}

TEST_CASE("gradcheck: cross_entropy with label smoothing, ignore_index and class weights") {
  Tensor logits = leaf({5, 4});
  Tensor target = on_test_device(tensor<int64_t>({1, -100, 3, 0, 3}, {5}));
  Tensor weight = on_test_device(rand({4}, kFloat64, &leaf.generator()) + 0.5);
  for (Reduction reduction : {Reduction::Mean, Reduction::Sum, Reduction::None}) {
    CHECK(
        gradcheck([&](const TensorList& in) { return F::cross_entropy(in[0], target, Tensor(), -100, reduction, 0.2); },
                  {logits}));
    CHECK(gradcheck([&](const TensorList& in) { return F::cross_entropy(in[0], target, weight, -100, reduction, 0.1); },
                    {logits}));
  }
  Tensor spatial_target = on_test_device(tensor<int64_t>({0, 2, 2, -100, 1, 0, 0, 1}, {2, 2, 2}));
  CHECK(gradcheck(
      [&](const TensorList& in) {
        return F::cross_entropy(in[0], spatial_target, Tensor(), -100, Reduction::Mean, 0.3);
      },
      {leaf({2, 3, 2, 2})}));
}

TEST_CASE("gradcheck: cross_entropy with class probabilities, in the logits and the target") {
  Tensor weight = on_test_device(rand({4}, kFloat64, &leaf.generator()) + 0.5);
  for (Reduction reduction : {Reduction::Mean, Reduction::Sum, Reduction::None}) {
    for (double smoothing : {0.0, 0.2}) {
      CHECK(gradcheck(
          [&](const TensorList& in) { return F::cross_entropy(in[0], in[1], weight, -100, reduction, smoothing); },
          {leaf({5, 4}), leaf({5, 4})}));
    }
  }
  CHECK(gradcheck([](const TensorList& in) { return F::cross_entropy(in[0], F::softmax(in[1], 1)); },
                  {leaf({2, 3, 2, 2}), leaf({2, 3, 2, 2})}));
  CHECK(
      gradgradcheck([](const TensorList& in) { return F::cross_entropy(in[0], in[1]); }, {leaf({3, 4}), leaf({3, 4})}));
}

TEST_CASE("gradcheck: dropout2d, its mask fixed by the generator's seed") {
  Generator g(5);
  auto fn = [&](const TensorList& in) {
    g.manual_seed(5);
    return F::dropout2d(in[0], 0.4, true, &g);
  };
  CHECK(gradcheck(fn, {leaf({3, 4, 2, 3})}));
  CHECK(gradcheck(fn, {leaf({3, 4, 5})}));
}

TEST_CASE("gradcheck: embedding, with and without padding_idx") {
  Tensor weight = leaf({6, 3});
  Tensor indices = on_test_device(tensor<int64_t>({0, 2, 2, 5, 1, 2}, {2, 3}));
  CHECK(gradcheck([&](const TensorList& in) { return F::embedding(indices, in[0]); }, {weight}));
  // The padding row's gradient is zero by definition (not the numerical derivative), so the
  // check runs with a padding_idx absent from indices; the zero row is checked directly.
  CHECK(gradcheck([&](const TensorList& in) { return F::embedding(indices, in[0], 4); }, {weight}));
  F::embedding(indices, weight, 2).sum().backward();
  Tensor padding_row_grad = weight.grad().select(0, 2);
  CHECK(padding_row_grad.abs().sum().item<double>() == 0.0);
  CHECK(weight.grad().select(0, 0).abs().sum().item<double>() == 3.0);
  CHECK(gradgradcheck([&](const TensorList& in) { return F::embedding(indices, in[0]) * in[0].sum(); }, {weight}));
}

TEST_CASE("gradcheck: conv1d over stride, padding, dilation and groups") {
  struct Conv1dCase {
    const char* name;
    Shape input, weight;
    int64_t stride, padding, dilation, groups;
    bool bias;
  };
  const Conv1dCase cases[] = {
      {"plain", {2, 2, 6}, {3, 2, 3}, 1, 0, 1, 1, true},
      {"stride, padding and dilation", {1, 2, 9}, {2, 2, 2}, 2, 2, 3, 1, false},
      {"groups", {2, 4, 5}, {6, 2, 2}, 1, 1, 1, 2, true},
      {"unbatched", {3, 5}, {2, 3, 2}, 1, 0, 1, 1, true},
  };
  for (const Conv1dCase& c : cases) {
    DYNAMIC_SECTION(c.name) {
      TensorList inputs{leaf(c.input), leaf(c.weight, 0.5)};
      if (c.bias) inputs.push_back(leaf({c.weight[0]}));
      auto fn = [&](const TensorList& in) {
        return F::conv1d(in[0], in[1], in.size() > 2 ? in[2] : Tensor(), c.stride, c.padding, c.dilation, c.groups);
      };
      CHECK(gradcheck(fn, inputs));
      CHECK(gradgradcheck(fn, inputs));
    }
  }
}

TEST_CASE("gradcheck: conv_transpose2d over stride, padding, output_padding, dilation and groups") {
  struct ConvTransposeCase {
    const char* name;
    Shape input, weight;
    Size2 stride, padding, output_padding;
    int64_t groups;
    Size2 dilation;
    bool bias;
  };
  const ConvTransposeCase cases[] = {
      {"plain", {2, 2, 3, 4}, {2, 3, 2, 2}, 1, 0, 0, 1, 1, true},
      {"stride, padding and output_padding", {1, 2, 3, 3}, {2, 2, 3, 3}, 2, 1, 1, 1, 1, true},
      {"rectangular with dilation", {1, 2, 3, 2}, {2, 1, 2, 3}, {2, 1}, {1, 0}, {1, 0}, 1, {1, 2}, false},
      {"groups", {2, 4, 2, 3}, {4, 2, 2, 2}, 2, 0, 1, 2, 1, true},
      {"output_padding past the stride", {1, 2, 3, 3}, {2, 2, 2, 2}, 1, {1, 0}, 2, 1, 3, true},
      {"unbatched", {2, 3, 3}, {2, 2, 2, 2}, 2, 1, 0, 1, 1, true},
  };
  for (const ConvTransposeCase& c : cases) {
    DYNAMIC_SECTION(c.name) {
      TensorList inputs{leaf(c.input), leaf(c.weight, 0.5)};
      if (c.bias) inputs.push_back(leaf({c.weight[1] * c.groups}));
      auto fn = [&](const TensorList& in) {
        return F::conv_transpose2d(in[0], in[1], in.size() > 2 ? in[2] : Tensor(), c.stride, c.padding,
                                   c.output_padding, c.groups, c.dilation);
      };
      CHECK(gradcheck(fn, inputs));
      CHECK(gradgradcheck(fn, inputs));
    }
  }
}

TEST_CASE("gradcheck: group_norm") {
  Tensor weight = leaf({4}), bias = leaf({4});
  auto fn = [](const TensorList& in) { return F::group_norm(in[0], 2, in[1], in[2], 1e-5); };
  CHECK(gradcheck(fn, {leaf({3, 4, 2, 3}, 2.0), weight, bias}));
  CHECK(gradgradcheck(fn, {leaf({3, 4, 2, 3}, 2.0), weight, bias}));
  CHECK(gradcheck([](const TensorList& in) { return F::group_norm(in[0], 4); }, {leaf({2, 4, 3})}));
}

TEST_CASE("gradcheck: interpolate, nearest and bilinear") {
  Tensor x = leaf({2, 2, 3, 4});
  const std::pair<const char*, F::InterpolateOptions> cases[] = {
      {"nearest up", F::InterpolateOptions().scale_factor({2.0})},
      {"nearest to a size", F::InterpolateOptions().size({5, 3})},
      {"bilinear up", F::InterpolateOptions().scale_factor({2.0}).mode("bilinear")},
      {"bilinear to a size, align_corners", F::InterpolateOptions().size({2, 7}).mode("bilinear").align_corners(true)},
      {"bilinear by fractional scales", F::InterpolateOptions().scale_factor({1.6, 0.7}).mode("bilinear")},
  };
  for (const auto& [name, options] : cases) {
    DYNAMIC_SECTION(name) {
      auto fn = [&, &options = options](const TensorList& in) { return F::interpolate(in[0], options); };
      CHECK(gradcheck(fn, {x}));
      CHECK(gradgradcheck(fn, {x}));
    }
  }
  CHECK(gradcheck([](const TensorList& in) { return F::interpolate(in[0], F::InterpolateOptions().size({5})); },
                  {leaf({2, 3, 3})}));
}

}  // namespace
}  // namespace brisk::nn
