// backward_input then backward_weight give the gradients backward() gives, bitwise: the input
// gradients from the first pass, every parameter's .grad after the second, on MLPs, a GPT
// block, a convolution, weights used twice and three times, a broadcast bias and a first stage
// without input gradients (a GPT on token ids, its tied embedding used twice). The input pass
// runs no weight-gradient matmul, and the saved tensors the weight pass needs live exactly
// until it runs.
#include <functional>
#include <memory>

#include "autograd/split_backward.h"
#include "models/gpt.h"
#include "models/gpt_block.h"
#include "nn/nn.h"
#include "profiler/profiler.h"
#include "tests/autograd/test_util.h"

namespace brisk::test {
namespace {

using autograd::backward_input;
using autograd::backward_weight;
using autograd::InputGradients;
namespace F = nn::functional;

using Forward = std::function<Tensor(const Tensor&)>;

bool bitwise_equal(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined()) return a.defined() == b.defined();
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() &&
         (a.to(kFloat64) - b.to(kFloat64)).abs().max().item<double>() == 0.0;
}

// The "bmm" kernel calls (every matmul, mm and linear runs on it) while `fn` runs.
int count_matmuls(const std::function<void()>& fn) {
  profiler::Profiler prof;
  prof.start();
  fn();
  prof.stop();
  int calls = 0;
  for (const profiler::Event& e : prof.events()) calls += e.category == profiler::Category::Op && e.name == "bmm";
  return calls;
}

struct Split {
  int input_matmuls = 0, weight_matmuls = 0;
};

// Runs `forward` on `x` twice, once with backward() and once split, and checks that the input
// gradient and every parameter's .grad agree bitwise. Returns the matmul counts of the passes.
Split check_split_equals_backward(const std::vector<Tensor>& params, const Forward& forward, const Tensor& x) {
  const Tensor input = x.is_floating_point() ? x.detach().requires_grad_() : x;
  for (const Tensor& p : params) p.set_grad(Tensor());
  Tensor out = forward(input);
  Tensor grad_out = randn(out.sizes(), out.dtype(), &generator());
  int plain_matmuls = count_matmuls([&] { out.backward(grad_out); });
  std::vector<Tensor> expected;
  for (const Tensor& p : params) expected.push_back(p.grad());
  const Tensor expected_input_grad = input.requires_grad() ? input.grad() : Tensor();

  for (const Tensor& p : params) p.set_grad(Tensor());
  const Tensor split_input = x.is_floating_point() ? x.detach().requires_grad_() : x;
  out = forward(split_input);
  Split split;
  InputGradients in;
  split.input_matmuls = count_matmuls([&] { in = backward_input({out}, {grad_out}, {split_input}); });
  REQUIRE(in.grads.size() == 1);
  CHECK(bitwise_equal(in.grads[0], expected_input_grad));
  CHECK(!split_input.grad().defined());  // captured, not accumulated
  for (const Tensor& p : params) CHECK(!p.grad().defined());
  split.weight_matmuls = count_matmuls([&] { backward_weight(std::move(in.weights)); });
  for (size_t i = 0; i < params.size(); ++i) {
    INFO("parameter " << i << " " << params[i].describe());
    CHECK(bitwise_equal(params[i].grad(), expected[i]));
  }
  CHECK(split.input_matmuls + split.weight_matmuls == plain_matmuls);
  return split;
}

nn::Sequential mlp(DType dtype) {
  nn::Sequential net(nn::Linear(6, 8), nn::Tanh(), nn::Linear(8, 8), nn::ReLU(), nn::Linear(8, 3));
  net->to(dtype);
  return net;
}

TEST_CASE("split backward equals backward on an MLP, float64 and float32", "[split_backward]") {
  for (DType dtype : {kFloat64, kFloat32}) {
    INFO(dtype_name(dtype));
    nn::Sequential net = mlp(dtype);
    Tensor x = randn({5, 6}, dtype, &generator());
    Split split = check_split_equals_backward(
        net->parameters(), [&](const Tensor& in) { return net->forward(in); }, x);
    // Three layers: three input-gradient matmuls first, three weight-gradient matmuls later.
    CHECK(split.input_matmuls == 3);
    CHECK(split.weight_matmuls == 3);
  }
}

TEST_CASE("split backward equals backward on a GPT block", "[split_backward]") {
  for (DType dtype : {kFloat64, kFloat32}) {
    INFO(dtype_name(dtype));
    models::GPTBlock block(models::GPTConfig::preset("tiny"));
    block->to(dtype);
    Tensor x = randn({2, 5, block->ln_1->options.normalized_shape()[0]}, dtype, &generator());
    Split split = check_split_equals_backward(
        block->parameters(), [&](const Tensor& in) { return block->forward(in); }, x);
    CHECK(split.input_matmuls > 0);
    CHECK(split.weight_matmuls >= 6);  // query, key, value, proj, fc, proj: one weight matmul each
  }
}

TEST_CASE("split backward equals backward on a convolution", "[split_backward]") {
  nn::Conv2d conv(nn::Conv2dOptions(2, 3, 3).padding(1));
  nn::Linear fc(3 * 4 * 4, 2);
  conv->to(kFloat64);
  fc->to(kFloat64);
  std::vector<Tensor> params = conv->parameters();
  for (const Tensor& p : fc->parameters()) params.push_back(p);
  Tensor x = randn({2, 2, 4, 4}, kFloat64, &generator());
  check_split_equals_backward(
      params, [&](const Tensor& in) { return fc(F::relu(conv(in)).flatten(1)); }, x);
}

TEST_CASE("split backward equals backward with weights used twice and three times", "[split_backward]") {
  Tensor w = make({4, 4});
  Split twice = check_split_equals_backward(
      {w}, [&](const Tensor& in) { return tanh(in.matmul(w)).matmul(w); }, randn({3, 4}, kFloat64, &generator()));
  CHECK(twice.input_matmuls == 2);
  CHECK(twice.weight_matmuls == 2);
  // Three times, once through a transposed view: the weight path has a node of its own (the
  // transpose's), which must run between the held matmuls for w's three gradients to be summed
  // in backward()'s order.
  check_split_equals_backward(
      {w}, [&](const Tensor& in) { return tanh(tanh(in.matmul(w)).matmul(w.t())).matmul(w); },
      randn({3, 4}, kFloat64, &generator()));
}

TEST_CASE("split backward equals backward with a broadcast bias", "[split_backward]") {
  Tensor w = make({4, 3});
  Tensor b = make({3});
  Tensor scale = make({1, 3});
  check_split_equals_backward(
      {w, b, scale}, [&](const Tensor& in) { return (in.matmul(w) + b) * scale; },
      randn({2, 5, 4}, kFloat64, &generator()));
}

TEST_CASE("a first stage on token ids: the weight pass is the whole backward", "[split_backward]") {
  models::GPTConfig config = models::GPTConfig::preset("tiny");
  models::GPT gpt(config);
  gpt->to(kFloat64);
  Tensor tokens = randint(0, config.vocab_size(), {2, 6}, kInt64, &generator());
  int64_t vocab = config.vocab_size();
  // The mean of the logits' squares: a loss to a scalar root, every parameter in its graph
  // (wte twice: the embedding and the output head).
  auto loss_of = [&](const Tensor& in) { return (gpt->forward(in).reshape({-1, vocab}).pow(2.0)).mean(); };
  for (const Tensor& p : gpt->parameters()) p.set_grad(Tensor());
  loss_of(tokens).backward();
  std::vector<Tensor> expected;
  for (const Tensor& p : gpt->parameters()) expected.push_back(p.grad());

  for (const Tensor& p : gpt->parameters()) p.set_grad(Tensor());
  Tensor loss = loss_of(tokens);
  InputGradients in;
  CHECK(count_matmuls([&] { in = backward_input({loss}, {}, {tokens}); }) == 0);
  CHECK(!in.grads[0].defined());
  CHECK(!in.weights.empty());
  CHECK(in.weights.held_nodes() == 0);  // nothing ran: the roots themselves wait
  backward_weight(std::move(in.weights));
  std::vector<Tensor> params = gpt->parameters();
  for (size_t i = 0; i < params.size(); ++i) {
    INFO("parameter " << i);
    CHECK(bitwise_equal(params[i].grad(), expected[i]));
  }
}

TEST_CASE("an input the outputs do not depend on gets no gradient; the weights get theirs", "[split_backward]") {
  Tensor w = make({3});
  Tensor unrelated = make({2});
  Tensor y = (w * w).sum();
  InputGradients in = backward_input({y}, {}, {unrelated});
  CHECK(!in.grads[0].defined());
  CHECK(!w.grad().defined());
  backward_weight(std::move(in.weights));
  CHECK(bitwise_equal(w.grad(), w.detach() * 2.0));
  CHECK(!unrelated.grad().defined());
}

TEST_CASE("the held nodes keep the weight pass's saved tensors until it runs, then free them", "[split_backward]") {
  nn::Linear first(4, 5), second(5, 2);
  first->to(kFloat64);
  second->to(kFloat64);
  Tensor x = randn({3, 4}, kFloat64, &generator()).requires_grad_();
  Tensor hidden = tanh(first(x));  // saved by second's node for second's weight gradient
  std::weak_ptr<TensorImpl> saved = hidden.weak_impl();
  Tensor out = second(hidden).sum();
  hidden = Tensor();
  InputGradients in = backward_input({out}, {}, {x});
  CHECK(in.weights.held_nodes() > 0);
  CHECK(!saved.expired());
  backward_weight(std::move(in.weights));
  CHECK(saved.expired());
  CHECK(first->weight.grad().defined());
  CHECK(second->weight.grad().defined());
  // The graph is spent, as after backward() without retain_graph.
  CHECK_THROWS(out.backward());
}

TEST_CASE("grad() computes only the gradients it is asked for", "[split_backward]") {
  nn::Linear layer(4, 4);
  layer->to(kFloat64);
  Tensor x = randn({3, 4}, kFloat64, &generator()).requires_grad_();
  Tensor y = layer(tanh(layer(x))).sum();
  TensorList g;
  // Two layers' input gradients; their weight gradients are not computed and then dropped.
  CHECK(count_matmuls([&] { g = autograd::grad({y}, {x}); }) == 2);
  CHECK(!layer->weight.grad().defined());
}

}  // namespace
}  // namespace brisk::test
