// nn/functional_options.h: libtorch's FuncOptions spellings give exactly what the positional
// calls of nn/functional.h give (those are checked against PyTorch by layers_reference_test),
// with libtorch's defaults; and the layers take libtorch's per-layer options.
#include "nn/functional_options.h"

#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "nn/modules/batchnorm.h"
#include "nn/modules/dropout.h"
#include "nn/modules/flatten.h"

using namespace brisk;
namespace F = brisk::nn::functional;

namespace {
Tensor sample(const Shape& shape, uint64_t seed) {
  Generator gen(seed);
  return randn(shape, {}, &gen);
}
}  // namespace

TEST_CASE("F::dropout with DropoutFuncOptions: p, training and libtorch's defaults", "[nn][functional]") {
  Tensor x = sample({4, 8}, 1);
  Generator a(7), b(7);
  CHECK(equal(F::dropout(x, F::DropoutFuncOptions().p(0.3).generator(&a)), F::dropout(x, 0.3, true, &b)));
  CHECK(equal(F::dropout(x, F::DropoutFuncOptions().p(0.3).training(false)), x));
  CHECK(F::DropoutFuncOptions().p() == 0.5);
  CHECK(F::DropoutFuncOptions().training());
  Tensor planes = sample({2, 3, 4, 4}, 2);
  Generator c(9), d(9);
  CHECK(equal(F::dropout2d(planes, F::Dropout2dFuncOptions().p(0.5).generator(&c)),
              F::dropout2d(planes, 0.5, true, &d)));
}

TEST_CASE("F:: normalization with FuncOptions", "[nn][functional]") {
  Tensor x = sample({5, 4}, 3);
  Tensor mean_a = zeros({4}), var_a = ones({4}), mean_b = zeros({4}), var_b = ones({4});
  Tensor w = sample({4}, 4), b = sample({4}, 5);
  Tensor got = F::batch_norm(x, mean_a, var_a,
                             F::BatchNormFuncOptions().weight(w).bias(b).training(true).momentum(0.2).eps(1e-3));
  CHECK(equal(got, F::batch_norm(x, mean_b, var_b, w, b, true, 0.2, 1e-3)));
  CHECK(equal(mean_a, mean_b));
  CHECK(equal(var_a, var_b));
  CHECK_FALSE(F::BatchNormFuncOptions().training());  // libtorch's default: eval

  CHECK(equal(F::layer_norm(x, F::LayerNormFuncOptions({4}).weight(w).bias(b).eps(1e-3)),
              F::layer_norm(x, {4}, w, b, 1e-3)));
  Tensor images = sample({2, 4, 3, 3}, 6);
  CHECK(equal(F::group_norm(images, F::GroupNormFuncOptions(2).weight(w).bias(b)),
              F::group_norm(images, 2, w, b)));
}

TEST_CASE("F:: activations with int dims and FuncOptions", "[nn][functional]") {
  Tensor x = sample({3, 5}, 7);
  CHECK(equal(F::softmax(x, F::SoftmaxFuncOptions(1)), F::softmax(x, 1)));
  CHECK(equal(F::log_softmax(x, F::LogSoftmaxFuncOptions(0)), F::log_softmax(x, 0)));
  Tensor as_double = F::log_softmax(x, F::LogSoftmaxFuncOptions(1).dtype(kFloat64));
  CHECK(as_double.dtype() == kFloat64);
  CHECK(equal(as_double, F::log_softmax(x.to(kFloat64), 1)));
  CHECK(equal(F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2)), F::leaky_relu(x, 0.2)));
  CHECK(equal(F::elu(x, F::ELUFuncOptions().alpha(0.5)), F::elu(x, 0.5)));
  CHECK(equal(F::gelu(x, F::GELUFuncOptions().approximate("tanh")), F::gelu(x, "tanh")));
  CHECK(equal(F::softplus(x, F::SoftplusFuncOptions().beta(2).threshold(5)), F::softplus(x, 2, 5)));
}

TEST_CASE("F:: convolution, pooling and embedding with FuncOptions", "[nn][functional]") {
  Tensor x = sample({1, 2, 6, 6}, 8);
  Tensor w = sample({3, 2, 3, 3}, 9), bias = sample({3}, 10);
  CHECK(equal(F::conv2d(x, w, F::Conv2dFuncOptions().bias(bias).stride(2).padding(1)),
              F::conv2d(x, w, bias, 2, 1)));
  Tensor seq = sample({1, 2, 7}, 11), w1 = sample({3, 2, 3}, 12);
  CHECK(equal(F::conv1d(seq, w1, F::Conv1dFuncOptions().padding(1).dilation(2)), F::conv1d(seq, w1, {}, 1, 1, 2)));
  Tensor wt = sample({2, 3, 3, 3}, 13);
  CHECK(equal(F::conv_transpose2d(x, wt, F::ConvTranspose2dFuncOptions().stride(2).output_padding(1)),
              F::conv_transpose2d(x, wt, {}, 2, 0, 1)));
  CHECK(equal(F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(2).padding(1)), F::max_pool2d(x, 3, 2, 1)));
  Tensor without_pad = F::avg_pool2d(x, F::AvgPool2dFuncOptions(2).padding(1).count_include_pad(false));
  CHECK(equal(without_pad, F::avg_pool2d(x, 2, std::nullopt, 1, false, false)));
  CHECK_FALSE(equal(without_pad, F::avg_pool2d(x, 2, std::nullopt, 1)));
  CHECK(equal(F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({2, 3})), F::adaptive_avg_pool2d(x, {2, 3})));
  CHECK(F::interpolate(x, F::InterpolateFuncOptions().scale_factor({2})).sizes() == Shape{1, 2, 12, 12});
  Tensor table = sample({5, 2}, 14);
  Tensor ids = tensor<int64_t>({0, 4, 0});
  CHECK(equal(F::embedding(ids, table, F::EmbeddingFuncOptions().padding_idx(0)), F::embedding(ids, table, 0)));
}

TEST_CASE("F:: losses with FuncOptions and libtorch's reduction names", "[nn][functional]") {
  Tensor logits = sample({4, 3}, 15);
  Tensor labels = tensor<int64_t>({0, 2, 1, 2});
  CHECK(equal(F::cross_entropy(logits, labels, F::CrossEntropyFuncOptions().label_smoothing(0.1).reduction(kSum)),
              F::cross_entropy(logits, labels, {}, -100, nn::Reduction::Sum, 0.1)));
  CHECK(equal(F::nll_loss(logits, labels, F::NLLLossFuncOptions().ignore_index(2).reduction(kNone)),
              F::nll_loss(logits, labels, {}, 2, nn::Reduction::None)));
  Tensor target = sample({4, 3}, 16);
  CHECK(equal(F::mse_loss(logits, target, F::MSELossFuncOptions(kSum)), F::mse_loss(logits, target, kSum)));
  CHECK(F::MSELossFuncOptions().reduction() == kMean);
}

TEST_CASE("Layers take libtorch's per-layer option names", "[nn][modules]") {
  nn::BatchNorm1d bn(nn::BatchNorm1dOptions(64).momentum(0.2).affine(false));
  CHECK(bn->options.num_features() == 64);
  CHECK(bn->options.momentum() == 0.2);
  CHECK_FALSE(bn->weight.defined());
  nn::BatchNorm2d bn2(nn::BatchNorm2dOptions(8).eps(1e-3).track_running_stats(false));
  CHECK_FALSE(bn2->running_mean.defined());
  CHECK(nn::Dropout2d(nn::Dropout2dOptions(0.2))->options.p() == 0.2);

  CHECK(nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2))->negative_slope == 0.2);
  CHECK(nn::LeakyReLU()->negative_slope == 0.01);
  CHECK(nn::ELU(nn::ELUOptions().alpha(0.5))->alpha == 0.5);
  CHECK(nn::GELU(nn::GELUOptions().approximate("tanh"))->approximate == "tanh");
  nn::Softplus softplus(nn::SoftplusOptions().beta(2).threshold(10));
  CHECK((softplus->beta == 2 && softplus->threshold == 10));
  CHECK(nn::Softmax(nn::SoftmaxOptions(0))->dim == 0);
  CHECK(nn::LogSoftmax(nn::LogSoftmaxOptions(1))->dim == 1);
  nn::Flatten flatten(nn::FlattenOptions().start_dim(0).end_dim(1));
  CHECK(flatten(zeros({2, 3, 4})).sizes() == Shape{6, 4});
  CHECK_THROWS_WITH(nn::GELU(nn::GELUOptions().approximate("fast")), Catch::Contains("got \"fast\""));
}
