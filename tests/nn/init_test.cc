// nn::init against torch.nn.init's formulas, and the layers' default initialization.
#include <catch2/catch.hpp>

#include <cmath>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "nn/nn.h"

namespace brisk::nn {
namespace {

using Catch::Matchers::Contains;

TEST_CASE("calculate_gain and fan computation follow torch.nn.init") {
  using init::Nonlinearity;
  CHECK(init::calculate_gain(Nonlinearity::Linear) == 1.0);
  CHECK(init::calculate_gain(Nonlinearity::Tanh) == Approx(5.0 / 3.0));
  CHECK(init::calculate_gain(Nonlinearity::ReLU) == Approx(std::sqrt(2.0)));
  CHECK(init::calculate_gain(Nonlinearity::LeakyReLU, std::sqrt(5.0)) == Approx(std::sqrt(1.0 / 3.0)));
  CHECK(init::calculate_gain(Nonlinearity::SELU) == 0.75);
  CHECK(init::calculate_fan_in_and_fan_out(empty({6, 3, 5, 5})) == std::pair<int64_t, int64_t>{75, 150});
  CHECK(init::calculate_fan_in_and_fan_out(empty({10, 784})) == std::pair<int64_t, int64_t>{784, 10});
  CHECK_THROWS_WITH(init::calculate_fan_in_and_fan_out(empty({3})), Contains("fewer than 2 dims"));
}

// max |x| and the standard deviation of a tensor's values.
std::pair<double, double> spread(const Tensor& t) {
  std::vector<double> v = t.to(kFloat64).to_vector<double>();
  double max = 0, sum = 0, sq = 0;
  for (double x : v) {
    max = std::max(max, std::abs(x));
    sum += x;
    sq += x * x;
  }
  double mean = sum / v.size();
  return {max, std::sqrt(sq / v.size() - mean * mean)};
}

TEST_CASE("the uniform initializers stay within their bound and fill it") {
  Generator gen(5);
  Tensor w = empty({200, 100});
  init::kaiming_uniform_(w, 0.0, init::FanMode::FanIn, init::Nonlinearity::ReLU, &gen);
  double bound = std::sqrt(2.0) * std::sqrt(3.0 / 100);
  auto [max, std] = spread(w);
  CHECK(max <= bound);
  CHECK(max > 0.99 * bound);
  CHECK(std == Approx(bound / std::sqrt(3.0)).epsilon(0.02));

  init::xavier_uniform_(w, 1.0, &gen);
  bound = std::sqrt(6.0 / 300);
  std::tie(max, std) = spread(w);
  CHECK(max <= bound);
  CHECK(max > 0.99 * bound);

  init::kaiming_uniform_(w, 0.0, init::FanMode::FanOut, init::Nonlinearity::ReLU, &gen);
  CHECK(spread(w).first <= std::sqrt(2.0) * std::sqrt(3.0 / 200));
}

TEST_CASE("the normal initializers have their standard deviation") {
  Generator gen(6);
  Tensor w = empty({300, 200});
  init::kaiming_normal_(w, 0.0, init::FanMode::FanOut, init::Nonlinearity::ReLU, &gen);
  CHECK(spread(w).second == Approx(std::sqrt(2.0 / 300)).epsilon(0.02));
  init::xavier_normal_(w, 2.0, &gen);
  CHECK(spread(w).second == Approx(2.0 * std::sqrt(2.0 / 500)).epsilon(0.02));
  init::normal_(w, 3.0, 0.5, &gen);
  CHECK(w.mean().item<float>() == Approx(3.0).epsilon(0.01));
}

TEST_CASE("constant initializers fill and record no history") {
  Tensor w = empty({3, 2}).requires_grad_();
  init::ones_(w);
  CHECK(equal(w, ones({3, 2})));
  CHECK(w.is_leaf());
  init::constant_(w, 2.5);
  CHECK(equal(w, full({3, 2}, 2.5)));
  init::zeros_(w);
  CHECK(equal(w, zeros({3, 2})));
}

TEST_CASE("Linear and Conv2d default to PyTorch's initialization bounds") {
  manual_seed(3);
  Linear fc(400, 30);
  double bound = 1.0 / std::sqrt(400.0);
  CHECK(spread(fc->weight).first <= bound);
  CHECK(spread(fc->weight).first > 0.98 * bound);
  CHECK(spread(fc->bias).first <= bound);

  Conv2d conv(Conv2dOptions(6, 16, 5).groups(2));
  bound = 1.0 / std::sqrt(3.0 * 25);
  CHECK(spread(conv->weight).first <= bound);
  CHECK(spread(conv->weight).first > 0.98 * bound);
  CHECK(spread(conv->bias).first <= bound);
}

TEST_CASE("Embedding starts from N(0, 1) with the padding row zero; norms start at identity") {
  manual_seed(4);
  Embedding embedding(EmbeddingOptions(500, 8).padding_idx(-1));
  CHECK(embedding->options.padding_idx() == 499);
  CHECK(equal(embedding->weight[499], zeros({8})));
  CHECK(spread(embedding->weight.narrow(0, 0, 499)).second == Approx(1.0).epsilon(0.05));
  BatchNorm2d bn(4);
  CHECK(equal(bn->weight, ones({4})));
  CHECK(equal(bn->bias, zeros({4})));
  CHECK(equal(bn->running_var, ones({4})));
  LayerNorm ln(LayerNormOptions({3, 2}));
  CHECK(equal(ln->weight, ones({3, 2})));
}

}  // namespace
}  // namespace brisk::nn
