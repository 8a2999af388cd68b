// Every layer and loss against PyTorch: the outputs and the gradients of the inputs and
// parameters for the cases of tests/fixtures/nn.json, nn_layers.json and nn_everyday.json
// (tools/fixtures/gen_nn_fixtures.py, gen_layers_fixtures.py and gen_everyday_fixtures.py).
// Layers run as modules whose parameters are loaded with the fixture's values.
#include <catch2/catch.hpp>

#include <map>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "nn/nn.h"
#include "tests/nn/nn_fixture.h"

namespace brisk::nn {
namespace {

using test::compare_to_fixture;
using test::fixture_tensor;
using test::json;
using test::nn_case;
using test::nn_cases_of_kind;
using Tensors = std::map<std::string, Tensor>;

// The case's inputs; those the case has gradients for require grad.
Tensors load_inputs(const json& c) {
  Tensors inputs;
  for (const auto& [name, spec] : c.at("inputs").items()) {
    Tensor t = fixture_tensor(spec);
    if (c.contains("grads") && c.at("grads").contains(name)) t.requires_grad_();
    inputs[name] = t;
  }
  return inputs;
}

// Copies the fixture's value of `name` into a module's parameter.
void load_into(const Tensor& param, const Tensors& inputs, const std::string& name) {
  NoGradGuard no_grad;
  Tensor target = param;
  target.copy_(inputs.at(name));
}

Size2 size2(const json& v) { return Size2(v[0].get<int64_t>(), v[1].get<int64_t>()); }

Reduction reduction_of(const json& params) {
  const std::string r = params.at("reduction");
  return r == "sum" ? Reduction::Sum : r == "none" ? Reduction::None : Reduction::Mean;
}

// Compares the outputs by name, then backpropagates the case's grad_out from "out" and
// compares the gradient of every tensor in `grad_of` that the case has one for.
void check(const json& c, const Tensors& outputs, const Tensors& grad_of) {
  for (const auto& [name, expected] : c.at("outputs").items()) {
    INFO("output " << name);
    REQUIRE(outputs.count(name) == 1);
    CHECK(compare_to_fixture(outputs.at(name), expected) == "");
  }
  if (!c.contains("grads")) return;
  outputs.at("out").backward(fixture_tensor(c.at("grad_out")));
  for (const auto& [name, expected] : c.at("grads").items()) {
    INFO("gradient of " << name);
    REQUIRE(grad_of.count(name) == 1);
    CHECK(compare_to_fixture(grad_of.at(name).grad(), expected) == "");
  }
}

// Loads the case's weight and bias into the layer's `weight` and `bias` members where it has
// them, runs it on x, and checks the output and the gradients of x and those parameters.
template <typename Holder>
void check_layer(const json& c, const Tensors& in, const Holder& layer) {
  Tensors grad_of{{"x", in.at("x")}};
  for (const auto& [name, param] : {std::pair<std::string, Tensor>{"weight", layer->weight}, {"bias", layer->bias}}) {
    if (!param.defined()) continue;
    load_into(param, in, name);
    grad_of[name] = param;
  }
  check(c, {{"out", layer(in.at("x"))}}, grad_of);
}

TEST_CASE("Linear matches PyTorch") {
  for (const std::string& name : nn_cases_of_kind("linear")) {
    DYNAMIC_SECTION(name) {
      const json& c = nn_case(name);
      const json& p = c.at("params");
      Tensors in = load_inputs(c);
      Linear fc(LinearOptions(p.at("in_features"), p.at("out_features")).bias(p.at("bias").get<bool>()));
      check_layer(c, in, fc);
    }
  }
}

TEST_CASE("Conv2d matches PyTorch (stride, padding, dilation, groups, no bias, 1x1, unbatched)") {
  for (const std::string& name : nn_cases_of_kind("conv2d")) {
    DYNAMIC_SECTION(name) {
      const json& c = nn_case(name);
      const json& p = c.at("params");
      Tensors in = load_inputs(c);
      Conv2d conv(Conv2dOptions(p.at("in_channels"), p.at("out_channels"), size2(p.at("kernel_size")))
                      .stride(size2(p.at("stride")))
                      .padding(size2(p.at("padding")))
                      .dilation(size2(p.at("dilation")))
                      .groups(p.at("groups"))
                      .bias(p.at("bias").get<bool>()));
      check_layer(c, in, conv);
    }
  }
}

std::optional<Size2> optional_size2(const json& v) {
  if (v.is_null()) return std::nullopt;
  return size2(v);
}

TEST_CASE("MaxPool2d matches PyTorch, indices included") {
  for (const std::string& name : nn_cases_of_kind("max_pool2d")) {
    DYNAMIC_SECTION(name) {
      const json& c = nn_case(name);
      const json& p = c.at("params");
      Tensors in = load_inputs(c);
      MaxPool2d pool(MaxPool2dOptions(size2(p.at("kernel_size")))
                         .stride(optional_size2(p.at("stride")))
                         .padding(size2(p.at("padding")))
                         .dilation(size2(p.at("dilation")))
                         .ceil_mode(p.at("ceil_mode")));
      auto [out, indices] = pool->forward_with_indices(in.at("x"));
      check(c, {{"out", out}, {"indices", indices}}, {{"x", in.at("x")}});
    }
  }
}

TEST_CASE("AvgPool2d matches PyTorch (padding, ceil_mode, count_include_pad, divisor_override)") {
  for (const std::string& name : nn_cases_of_kind("avg_pool2d")) {
    DYNAMIC_SECTION(name) {
      const json& c = nn_case(name);
      const json& p = c.at("params");
      Tensors in = load_inputs(c);
      AvgPool2dOptions options(size2(p.at("kernel_size")));
      options.stride(optional_size2(p.at("stride")))
          .padding(size2(p.at("padding")))
          .ceil_mode(p.at("ceil_mode"))
          .count_include_pad(p.at("count_include_pad"));
      if (!p.at("divisor_override").is_null()) options.divisor_override(p.at("divisor_override").get<int64_t>());
      AvgPool2d pool(options);
      check(c, {{"out", pool(in.at("x"))}}, {{"x", in.at("x")}});
    }
  }
}

TEST_CASE("AdaptiveAvgPool2d matches PyTorch (shrinking, global, growing)") {
  for (const std::string& name : nn_cases_of_kind("adaptive_avg_pool2d")) {
    DYNAMIC_SECTION(name) {
      const json& c = nn_case(name);
      Tensors in = load_inputs(c);
      AdaptiveAvgPool2d pool(size2(c.at("params").at("output_size")));
      check(c, {{"out", pool(in.at("x"))}}, {{"x", in.at("x")}});
    }
  }
}

TEST_CASE("BatchNorm matches PyTorch in training, in its running statistics and in eval") {
  for (const std::string& name : nn_cases_of_kind("batch_norm")) {
    DYNAMIC_SECTION(name) {
      const json& c = nn_case(name);
      const json& p = c.at("params");
      Tensors in = load_inputs(c);
      BatchNormOptions options(p.at("num_features"));
      options.eps(p.at("eps"));
      options.momentum(p.at("momentum").is_null() ? std::nullopt
                                                  : std::optional<double>(p.at("momentum").get<double>()));
      std::shared_ptr<BatchNormImplBase> bn;
      if (in.at("x").dim() == 4) {
        bn = BatchNorm2d(options).ptr();
      } else {
        bn = BatchNorm1d(options).ptr();
      }
      load_into(bn->weight, in, "weight");
      load_into(bn->bias, in, "bias");
      // Without momentum the fixture folds in a first batch (x2) before the recorded one.
      if (!options.momentum()) {
        NoGradGuard no_grad;
        bn->forward(in.at("x2"));
      }
      Tensor out = bn->forward(in.at("x"));
      bn->eval();
      Tensor eval_out;
      {
        NoGradGuard no_grad;
        eval_out = bn->forward(in.at("x2"));
      }
      CHECK(bn->num_batches_tracked.item<int64_t>() == (options.momentum() ? 1 : 2));
      check(
          c,
          {{"out", out}, {"running_mean", bn->running_mean}, {"running_var", bn->running_var}, {"eval_out", eval_out}},
          {{"x", in.at("x")}, {"weight", bn->weight}, {"bias", bn->bias}});
    }
  }
}

TEST_CASE("BatchNorm with a fused activation matches PyTorch's batch_norm then relu/gelu, NCHW and channels_last") {
  for (const std::string& name : nn_cases_of_kind("batch_norm_activation")) {
    DYNAMIC_SECTION(name) {
      const json& c = nn_case(name);
      const json& p = c.at("params");
      Tensors in = load_inputs(c);
      const FusedActivation activation = p.at("activation") == "relu" ? FusedActivation::Relu : FusedActivation::Gelu;
      BatchNorm2d bn(BatchNormOptions(p.at("num_features"))
                         .eps(p.at("eps"))
                         .momentum(p.at("momentum").get<double>())
                         .activation(activation));
      load_into(bn->weight, in, "weight");
      load_into(bn->bias, in, "bias");
      // channels_last: the same values with strides (H*W*C, 1, W*C, C), differentiably.
      auto laid_out = [&](const Tensor& x) {
        return p.at("channels_last").get<bool>() ? x.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2}) : x;
      };
      Tensor out = bn->forward(laid_out(in.at("x")));
      bn->eval();
      Tensor eval_out;
      {
        NoGradGuard no_grad;
        eval_out = bn->forward(laid_out(in.at("x2")));
      }
      check(
          c,
          {{"out", out}, {"running_mean", bn->running_mean}, {"running_var", bn->running_var}, {"eval_out", eval_out}},
          {{"x", in.at("x")}, {"weight", bn->weight}, {"bias", bn->bias}});
    }
  }
}

TEST_CASE("add_relu matches PyTorch's relu(a + b), with a broadcast bias too") {
  for (const std::string& name : nn_cases_of_kind("add_relu")) {
    DYNAMIC_SECTION(name) {
      const json& c = nn_case(name);
      Tensors in = load_inputs(c);
      check(c, {{"out", functional::add_relu(in.at("a"), in.at("b"))}}, {{"a", in.at("a")}, {"b", in.at("b")}});
    }
  }
}

TEST_CASE("LayerNorm matches PyTorch") {
  for (const std::string& name : nn_cases_of_kind("layer_norm")) {
    DYNAMIC_SECTION(name) {
      const json& c = nn_case(name);
      const json& p = c.at("params");
      Tensors in = load_inputs(c);
      LayerNorm norm(LayerNormOptions(p.at("normalized_shape").get<Shape>())
                         .eps(p.at("eps"))
                         .elementwise_affine(p.at("elementwise_affine")));
      check_layer(c, in, norm);
    }
  }
}

TEST_CASE("Embedding matches PyTorch, padding_idx included") {
  for (const std::string& name : nn_cases_of_kind("embedding")) {
    DYNAMIC_SECTION(name) {
      const json& c = nn_case(name);
      const json& p = c.at("params");
      Tensors in = load_inputs(c);
      EmbeddingOptions options(p.at("num_embeddings"), p.at("embedding_dim"));
      if (!p.at("padding_idx").is_null()) options.padding_idx(p.at("padding_idx").get<int64_t>());
      Embedding embedding(options);
      load_into(embedding->weight, in, "weight");
      check(c, {{"out", embedding(in.at("indices"))}}, {{"weight", embedding->weight}});
    }
  }
}

TEST_CASE("activation layers and Flatten match PyTorch") {
  std::map<std::string, std::function<Tensor(const Tensor&)>> layers{
      {"relu", ReLU()},
      {"gelu", GELU()},
      {"gelu_tanh", GELU("tanh")},
      {"silu", SiLU()},
      {"tanh", Tanh()},
      {"sigmoid", Sigmoid()},
      {"softmax", Softmax(1)},
      {"log_softmax", LogSoftmax(1)},
      {"flatten", Flatten()},
      {"leaky_relu", LeakyReLU()},
      {"leaky_relu_0.2", LeakyReLU(0.2)},
      {"elu", ELU()},
      {"elu_0.5", ELU(0.5)},
      {"softplus", Softplus()},
      {"softplus_2_1", Softplus(2.0, 1.0)},
      {"hardswish", Hardswish()},
  };
  for (const std::string& name : nn_cases_of_kind("activation")) {
    DYNAMIC_SECTION(name) {
      const json& c = nn_case(name);
      Tensors in = load_inputs(c);
      check(c, {{"out", layers.at(c.at("params").at("name"))(in.at("x"))}}, {{"x", in.at("x")}});
    }
  }
}

TEST_CASE("pad (constant mode) matches PyTorch: pads from the last dim backwards, crops, a value") {
  for (const std::string& name : nn_cases_of_kind("pad")) {
    DYNAMIC_SECTION(name) {
      const json& c = nn_case(name);
      Tensors in = load_inputs(c);
      const std::vector<int64_t> pad = c.at("params").at("pad");
      check(c, {{"out", functional::pad(in.at("x"), pad, c.at("params").at("value"))}}, {{"x", in.at("x")}});
    }
  }
}

TEST_CASE("CrossEntropyLoss matches PyTorch (reductions, ignore_index, label smoothing, class weights, class "
          "probabilities)") {
  for (const std::string& name : nn_cases_of_kind("cross_entropy")) {
    DYNAMIC_SECTION(name) {
      const json& c = nn_case(name);
      const json& p = c.at("params");
      Tensors in = load_inputs(c);
      CrossEntropyLossOptions options;
      options.reduction(reduction_of(p))
          .ignore_index(p.value("ignore_index", int64_t{-100}))
          .label_smoothing(p.value("label_smoothing", 0.0));
      if (in.count("weight")) options.weight(in.at("weight"));
      CrossEntropyLoss loss(options);
      // Class-probability targets get a gradient too.
      check(c, {{"out", loss(in.at("x"), in.at("target"))}}, {{"x", in.at("x")}, {"target", in.at("target")}});
    }
  }
}

TEST_CASE("NLLLoss matches PyTorch") {
  for (const std::string& name : nn_cases_of_kind("nll_loss")) {
    DYNAMIC_SECTION(name) {
      const json& c = nn_case(name);
      Tensors in = load_inputs(c);
      NLLLossOptions options;
      options.reduction(reduction_of(c.at("params")));
      if (in.count("weight")) options.weight(in.at("weight"));
      NLLLoss loss(options);
      check(c, {{"out", loss(in.at("x"), in.at("target"))}}, {{"x", in.at("x")}});
    }
  }
}

TEST_CASE("MSELoss matches PyTorch") {
  for (const std::string& name : nn_cases_of_kind("mse_loss")) {
    DYNAMIC_SECTION(name) {
      const json& c = nn_case(name);
      Tensors in = load_inputs(c);
      MSELoss loss(MSELossOptions().reduction(reduction_of(c.at("params"))));
      check(c, {{"out", loss(in.at("x"), in.at("target"))}}, {{"x", in.at("x")}, {"target", in.at("target")}});
    }
  }
}

TEST_CASE("Conv1d matches PyTorch (stride, padding, dilation, groups, no bias, unbatched)") {
  for (const std::string& name : nn_cases_of_kind("conv1d")) {
    DYNAMIC_SECTION(name) {
      const json& c = nn_case(name);
      const json& p = c.at("params");
      Tensors in = load_inputs(c);
      Conv1d conv(Conv1dOptions(p.at("in_channels"), p.at("out_channels"), p.at("kernel_size"))
                      .stride(p.at("stride"))
                      .padding(p.at("padding"))
                      .dilation(p.at("dilation"))
                      .groups(p.at("groups"))
                      .bias(p.at("bias").get<bool>()));
      check_layer(c, in, conv);
    }
  }
}

TEST_CASE("ConvTranspose2d matches PyTorch (stride, padding, output_padding, dilation, groups, unbatched)") {
  for (const std::string& name : nn_cases_of_kind("conv_transpose2d")) {
    DYNAMIC_SECTION(name) {
      const json& c = nn_case(name);
      const json& p = c.at("params");
      Tensors in = load_inputs(c);
      ConvTranspose2d conv(ConvTranspose2dOptions(p.at("in_channels"), p.at("out_channels"), size2(p.at("kernel_size")))
                               .stride(size2(p.at("stride")))
                               .padding(size2(p.at("padding")))
                               .output_padding(size2(p.at("output_padding")))
                               .groups(p.at("groups"))
                               .bias(p.at("bias").get<bool>())
                               .dilation(size2(p.at("dilation"))));
      check_layer(c, in, conv);
    }
  }
}

TEST_CASE("GroupNorm matches PyTorch (2-D to 4-D inputs, one group, a group per channel, no affine)") {
  for (const std::string& name : nn_cases_of_kind("group_norm")) {
    DYNAMIC_SECTION(name) {
      const json& c = nn_case(name);
      const json& p = c.at("params");
      Tensors in = load_inputs(c);
      GroupNorm norm(
          GroupNormOptions(p.at("num_groups"), p.at("num_channels")).eps(p.at("eps")).affine(p.at("affine")));
      check_layer(c, in, norm);
    }
  }
}

TEST_CASE("Upsample matches PyTorch (nearest 1-D to 3-D, bilinear with and without align_corners, size or scale)") {
  for (const std::string& name : nn_cases_of_kind("upsample")) {
    DYNAMIC_SECTION(name) {
      const json& c = nn_case(name);
      const json& p = c.at("params");
      Tensors in = load_inputs(c);
      UpsampleOptions options;
      options.mode(p.at("mode").get<std::string>());
      if (!p.at("size").is_null()) options.size(p.at("size").get<std::vector<int64_t>>());
      if (!p.at("scale_factor").is_null()) options.scale_factor(p.at("scale_factor").get<std::vector<double>>());
      if (!p.at("align_corners").is_null()) options.align_corners(p.at("align_corners").get<bool>());
      options.recompute_scale_factor(p.value("recompute_scale_factor", false));
      Upsample upsample(options);
      check(c, {{"out", upsample(in.at("x"))}}, {{"x", in.at("x")}});
    }
  }
}

}  // namespace
}  // namespace brisk::nn
