// Typical libtorch code, written as a libtorch user writes it. It compiles unchanged against
// Brisk with `namespace torch = brisk;` (tests/porting/snippet.h), and each snippet's recorded
// values equal libtorch's (tests/fixtures/libtorch_snippets.jsonl, written by
// tools/fixtures/gen_libtorch_snippets.sh from libtorch itself). docs/porting.md lists what
// still differs.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "tests/porting/snippet.h"

using porting::record;
using namespace torch::indexing;
namespace F = torch::nn::functional;

namespace {

// A matrix of distinct values: 0, 1, ..., rows*cols-1 divided by 4.
torch::Tensor counting(int64_t rows, int64_t cols) {
  return torch::arange(rows * cols, torch::kFloat).view({rows, cols}) / 4;
}

// Gives every parameter fixed values, so that both libraries start from the same model.
void fill_parameters(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  for (auto& p : module.named_parameters()) {
    auto& value = p.value();
    value.copy_(torch::linspace(-0.5, 0.5, value.numel()).view(value.sizes()));
  }
}

}  // namespace

// ---- Tensors: factories, dtypes, options ----

SNIPPET(factories) {
  record("zeros", torch::zeros({2, 3}));
  record("ones_long", torch::ones({2}, torch::kLong));
  record("full", torch::full({2, 2}, 7.5));
  record("arange", torch::arange(5));
  record("arange_step", torch::arange(1, 10, 2));
  record("arange_float", torch::arange(0.0, 1.0, 0.25));
  record("linspace", torch::linspace(0, 1, 5));
  record("linspace_double", torch::linspace(-1, 1, 7, torch::kDouble));
  record("eye", torch::eye(3));
  record("tensor_floats", torch::tensor({1.5, 2.5, 3.5}));
  record("tensor_ints", torch::tensor({1, 2, 3}));
  record("zeros_like", torch::zeros_like(counting(2, 2)));
  record("ones_like", torch::ones_like(torch::tensor({1, 2})));
  record("empty_numel", static_cast<double>(torch::empty({4, 5}).numel()));
}

SNIPPET(dtypes) {
  auto x = torch::zeros({2}, torch::TensorOptions().dtype(torch::kDouble));
  record("double", x + 1);
  auto y = counting(2, 2);
  record("to_int", (y * 3).to(torch::kInt));
  record("to_long", (y * 3).to(torch::kLong));
  record("to_half_and_back", (y / 3).to(torch::kHalf).to(torch::kFloat));
  record("to_byte", (y * 4).to(torch::kByte));
  record("is_float", y.dtype() == torch::kFloat ? 1.0 : 0.0);
  record("scalar_type_long", torch::arange(3).scalar_type() == torch::kLong ? 1.0 : 0.0);
  record("is_floating_point", y.is_floating_point() ? 1.0 : 0.0);
  record("promote", torch::tensor({1, 2}) * 0.5);
}

SNIPPET(metadata) {
  auto x = counting(3, 4);
  record("dim", static_cast<double>(x.dim()));
  record("numel", static_cast<double>(x.numel()));
  record("size0", static_cast<double>(x.size(0)));
  record("size_last", static_cast<double>(x.size(-1)));
  std::vector<int64_t> sizes = x.sizes().vec();
  record("sizes", torch::tensor(sizes));
  record("contiguous_t", x.t().is_contiguous() ? 1.0 : 0.0);
  record("contiguous", x.t().contiguous().is_contiguous() ? 1.0 : 0.0);
}

SNIPPET(item_and_data_ptr) {
  auto x = counting(2, 3);
  record("sum_item", x.sum().item<float>());
  record("max_item_long", static_cast<double>(torch::arange(7).max().item<int64_t>()));
  record("item_double", x.mean().item<double>());
  float* data = x.data_ptr<float>();
  record("data_ptr_4", data[4]);
  x.data_ptr<float>()[1] = 10;
  record("written_through_data_ptr", x);
}

// ---- Arithmetic, math, comparisons ----

SNIPPET(arithmetic) {
  auto a = counting(2, 3);
  auto b = torch::tensor({1.0, -2.0, 0.5});
  record("add_broadcast", a + b);
  record("sub_scalar", a - 1);
  record("mul_scalar", 2 * a);
  record("div", a / b);
  record("pow", a.pow(2));
  record("neg", -a);
  auto c = a.clone();
  c += b;
  c.mul_(2);
  record("in_place", c);
  record("add_alpha", a.add(b, 3));
}

SNIPPET(math) {
  auto x = torch::linspace(-2, 2, 9);
  record("exp", torch::exp(x));
  record("log_abs", torch::log(torch::abs(x) + 1));
  record("sqrt", torch::sqrt(x.abs()));
  record("tanh", torch::tanh(x));
  record("sigmoid", torch::sigmoid(x));
  record("relu", torch::relu(x));
  record("clamp", x.clamp(-1, 1));
  record("clamp_min", torch::clamp(x, 0));
  record("clamp_max_method", x.clamp_max(0.5));
  record("where", torch::where(x > 0, x, torch::zeros_like(x)));
  record("maximum", torch::maximum(x, torch::zeros_like(x)));
  record("sin_method", x.sin());
}

SNIPPET(comparisons) {
  auto x = torch::tensor({1, 5, 3, 5});
  record("eq", x == 5);
  record("gt", x > 2);
  record("ne_tensor", x != torch::tensor({1, 2, 3, 4}));
  record("logical_not", (x > 2).logical_not());
  record("allclose", torch::allclose(counting(2, 2), counting(2, 2) + 1e-9) ? 1.0 : 0.0);
  record("equal", torch::equal(x, torch::tensor({1, 5, 3, 5})) ? 1.0 : 0.0);
  record("masked_fill", x.masked_fill(x == 5, 0));
}

// ---- Reductions ----

SNIPPET(reductions) {
  auto x = counting(3, 4);
  record("sum", x.sum());
  record("sum_dim", x.sum(1));
  record("sum_dim_keepdim", x.sum(1, true));
  record("sum_dims", x.sum({0, 1}));
  record("mean_dim", x.mean(0));
  record("mean_keepdim", x.mean(-1, true));
  record("prod_dim", (x + 1).prod(1));
  record("max", x.max());
  record("min", x.min());
  record("argmax_dim", x.argmax(1));
  record("var_dim", x.var(0));
  record("std", x.std());
  record("var_biased", x.var(false));
  record("std_unbiased_dim", x.std(1, true));
  record("norm", x.norm());
  record("amax_dim", x.amax(1));
  record("logsumexp", x.logsumexp(1));
  record("free_sum", torch::sum(x, 0));
  record("free_mean", torch::mean(x, {0, 1}));
}

SNIPPET(max_with_indices) {
  auto x = torch::tensor({{1.0, 7.0, 3.0}, {9.0, 2.0, 4.0}});
  auto [values, indices] = x.max(1);
  record("values", values);
  record("indices", indices);
  auto min = x.min(0, true);
  record("min_values", std::get<0>(min));
  record("min_indices", std::get<1>(min));
}

// ---- Shapes and views ----

SNIPPET(shapes) {
  auto x = counting(2, 6);
  record("view", x.view({3, 4}));
  record("view_infer", x.view({-1, 3}));
  record("reshape", x.reshape({4, 3}));
  record("permute", x.view({2, 3, 2}).permute({2, 0, 1}));
  record("transpose", x.transpose(0, 1));
  record("unsqueeze", x.unsqueeze(1).sizes().vec() == std::vector<int64_t>{2, 1, 6} ? 1.0 : 0.0);
  record("squeeze", x.view({1, 2, 1, 6}).squeeze());
  record("flatten", x.view({2, 3, 2}).flatten(1));
  record("narrow", x.narrow(1, 2, 3));
  record("select", x.select(1, 4));
  record("expand", torch::tensor({1.0, 2.0}).view({2, 1}).expand({2, 3}));
}

SNIPPET(cat_stack_split) {
  auto a = counting(2, 2);
  auto b = counting(2, 2) + 10;
  record("cat0", torch::cat({a, b}));
  record("cat1", torch::cat({a, b}, 1));
  record("stack", torch::stack({a, b}, 2));
  auto chunks = counting(4, 2).chunk(2, 0);
  record("chunk_count", static_cast<double>(chunks.size()));
  record("chunk1", chunks[1]);
  auto parts = torch::arange(7).split(3);
  record("split_last", parts.back());
}

// ---- Indexing (torch::indexing) ----

SNIPPET(index_basic) {
  auto x = counting(3, 4);
  record("int", x.index({1}));
  record("int_int", x.index({1, 2}));
  record("slice_all_int", x.index({Slice(), 1}));
  record("slice_from", x.index({Slice(1, None)}));
  record("slice_step", x.index({Slice(), Slice(None, None, 2)}));
  record("slice_negative", x.index({Slice(-2, None), Slice(1, -1)}));
  record("ellipsis", x.index({"...", 0}));
  record("ellipsis_object", x.index({Ellipsis, Slice(2)}));
  record("none", x.index({None, 0}));
  record("none_middle", x.index({Slice(), None, 1}));
}

SNIPPET(index_advanced) {
  auto x = counting(3, 4);
  record("mask", x.index({x > 1.5}));
  record("row_mask", x.index({torch::tensor({true, false, true})}));
  record("index_tensor", x.index({torch::tensor({2, 0})}));
  record("index_tensor_dim1", x.index({Slice(), torch::tensor({3, 1})}));
}

SNIPPET(index_put) {
  auto x = torch::zeros({3, 4});
  x.index_put_({Slice(), 0}, 5);
  x.index_put_({1}, torch::arange(4, torch::kFloat));
  x.index_put_({Slice(1, None), Slice(2, None)}, torch::ones({2, 2}) * 9);
  record("written", x);
  auto y = counting(2, 3);
  y.index_put_({y > 1}, -1);
  record("masked", y);
  auto z = torch::zeros({4});
  z.index_put_({torch::tensor({0, 2})}, torch::tensor({1.0f, 3.0f}));
  record("by_index", z);
}

SNIPPET(index_gradient) {
  auto x = counting(3, 4).requires_grad_();
  auto loss = (x.index({Slice(1, None), Slice(None, None, 2)}) * 3).sum() + x.index({x > 2}).sum();
  loss.backward();
  record("grad", x.grad());
}

SNIPPET(masked_select) {
  auto x = counting(2, 3);
  record("selected", torch::masked_select(x, x > 0.5));
  record("method_broadcast", x.masked_select(torch::tensor({true, false, true})));
  auto y = counting(2, 3).to(torch::kDouble).requires_grad_();
  y.masked_select(y.detach() > 0.6).pow(2).sum().backward();
  record("grad", y.grad());
}

SNIPPET(gather_index_select) {
  auto x = counting(3, 4);
  record("index_select", x.index_select(1, torch::tensor({0, 3})));
  record("gather", x.gather(1, torch::tensor({{0}, {2}, {3}})));
  auto src = torch::ones({2, 4});
  record("scatter_add", torch::zeros({3, 4}).scatter_add(0, torch::tensor({{0, 1, 2, 0}, {2, 2, 1, 0}}), src));
}

// ---- Raw memory: from_blob, accessor ----

SNIPPET(from_blob) {
  float data[] = {1, 2, 3, 4, 5, 6};
  auto x = torch::from_blob(data, {2, 3});
  record("float", x);
  data[0] = 100;
  record("shares_memory", x.index({0, 0}));
  double more[] = {0.5, 1.5, 2.5, 3.5};
  auto y = torch::from_blob(more, {2, 2}, torch::TensorOptions().dtype(torch::kFloat64)).clone();
  more[0] = 0;
  record("cloned_double", y);
  int64_t labels[] = {3, 1, 2};
  record("long", torch::from_blob(labels, {3}, torch::kLong) * 2);
}

SNIPPET(accessor) {
  auto x = counting(3, 4);
  auto a = x.accessor<float, 2>();
  double total = 0;
  for (int64_t i = 0; i < a.size(0); ++i) {
    for (int64_t j = 0; j < a.size(1); ++j) total += a[i][j] * (i + 1);
  }
  record("weighted_total", total);
  a[2][3] = -1;
  record("written", x);
  auto labels = torch::tensor({4, 2, 7});
  auto l = labels.accessor<int64_t, 1>();
  record("long_element", static_cast<double>(l[2]));
}

// ---- Autograd ----

SNIPPET(autograd_basics) {
  auto x = torch::tensor({1.0, 2.0, 3.0}, torch::requires_grad());
  auto y = (x * x * 2).sum();
  y.backward();
  record("grad", x.grad());
  record("requires_grad", y.requires_grad() ? 1.0 : 0.0);
  {
    torch::NoGradGuard no_grad;
    auto z = x * 2;
    record("no_grad_requires_grad", z.requires_grad() ? 1.0 : 0.0);
  }
  record("detach", x.detach().requires_grad() ? 1.0 : 0.0);
  x.grad().zero_();
  (x.pow(3).mean()).backward();
  record("grad_again", x.grad());
}

SNIPPET(matmul) {
  auto a = counting(2, 3);
  auto b = counting(3, 2) - 1;
  record("matmul", torch::matmul(a, b));
  record("mm", a.mm(b));
  record("bmm", torch::bmm(a.unsqueeze(0), b.unsqueeze(0)));
  record("matmul_vector", a.matmul(torch::tensor({1.0f, 0.0f, -1.0f})));
}

SNIPPET(softmax) {
  auto x = counting(2, 3);
  record("softmax", torch::softmax(x, 1));
  record("log_softmax", torch::log_softmax(x, -1));
  record("functional", F::softmax(x, F::SoftmaxFuncOptions(0)));
  record("method", x.softmax(1));
}

// ---- nn: modules ----

struct Net : torch::nn::Module {
  Net() {
    fc1 = register_module("fc1", torch::nn::Linear(4, 8));
    bn = register_module("bn", torch::nn::BatchNorm1d(torch::nn::BatchNorm1dOptions(8).momentum(0.2)));
    dropout = register_module("dropout", torch::nn::Dropout(torch::nn::DropoutOptions(0.5)));
    fc2 = register_module("fc2", torch::nn::Linear(torch::nn::LinearOptions(8, 3).bias(true)));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(bn(fc1(x)));
    x = dropout(x);
    return fc2(x);
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::nn::BatchNorm1d bn{nullptr};
  torch::nn::Dropout dropout{nullptr};
};

SNIPPET(custom_module) {
  auto net = std::make_shared<Net>();
  fill_parameters(*net);
  std::vector<std::string> names;
  for (const auto& p : net->named_parameters()) names.push_back(p.key());
  record("parameter_names", names);
  std::vector<std::string> buffers;
  for (const auto& b : net->named_buffers()) buffers.push_back(b.key());
  record("buffer_names", buffers);
  net->eval();
  auto x = counting(5, 4);
  record("eval_output", net->forward(x));
  net->train();
  auto out = net->forward(x);
  record("training", net->is_training() ? 1.0 : 0.0);
  record("running_mean", net->bn->running_mean);
  record("parameter_count", static_cast<double>(net->parameters().size()));
}

struct TinyImpl : torch::nn::Module {
  TinyImpl(int64_t in, int64_t out) : linear(register_module("linear", torch::nn::Linear(in, out))) {
    scale = register_parameter("scale", torch::ones({out}));
    register_buffer("offset", torch::full({out}, 0.25));
  }
  torch::Tensor forward(const torch::Tensor& x) { return linear(x) * scale + named_buffers()["offset"]; }
  torch::nn::Linear linear;
  torch::Tensor scale;
};
TORCH_MODULE(Tiny);

SNIPPET(torch_module_macro) {
  Tiny tiny(3, 2);
  fill_parameters(*tiny);
  record("forward", tiny(counting(2, 3)));
  record("parameters", static_cast<double>(tiny->parameters().size()));
  record("scale_grad_enabled", tiny->scale.requires_grad() ? 1.0 : 0.0);
}

SNIPPET(sequential) {
  torch::nn::Sequential model(torch::nn::Linear(3, 4), torch::nn::ReLU(), torch::nn::Linear(4, 2));
  fill_parameters(*model);
  record("output", model->forward(counting(2, 3)));
  std::vector<std::string> names;
  for (const auto& p : model->named_parameters()) names.push_back(p.key());
  record("names", names);
  record("size", static_cast<double>(model->size()));
}

SNIPPET(conv_pool) {
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(1, 2, 3).stride(1).padding(1).bias(false));
  fill_parameters(*conv);
  auto x = torch::arange(25, torch::kFloat).view({1, 1, 5, 5}) / 10;
  auto y = conv(x);
  record("conv", y);
  torch::nn::MaxPool2d pool(torch::nn::MaxPool2dOptions(2).stride(2));
  record("max_pool", pool(y));
  record("avg_pool", F::avg_pool2d(y, F::AvgPool2dFuncOptions(2)));
  record("max_pool_functional", F::max_pool2d(y, F::MaxPool2dFuncOptions(3).stride(1).padding(1)));
  torch::nn::AdaptiveAvgPool2d gap(torch::nn::AdaptiveAvgPool2dOptions({1, 1}));
  record("adaptive", gap(y));
  torch::nn::Flatten flatten;
  record("flatten", flatten(gap(y)));
}

SNIPPET(batchnorm2d) {
  torch::nn::BatchNorm2d bn(torch::nn::BatchNorm2dOptions(2).eps(1e-3).momentum(0.5));
  auto x = torch::arange(16, torch::kFloat).view({2, 2, 2, 2});
  record("train_output", bn(x));
  record("running_var", bn->running_var);
  bn->eval();
  record("eval_output", bn(x));
}

SNIPPET(layers) {
  torch::nn::LayerNorm ln(torch::nn::LayerNormOptions({4}).elementwise_affine(true));
  record("layer_norm", ln(counting(2, 4)));
  torch::nn::Embedding embedding(torch::nn::EmbeddingOptions(10, 3));
  fill_parameters(*embedding);
  record("embedding", embedding(torch::tensor({1, 7, 1})));
  torch::nn::LeakyReLU leaky(torch::nn::LeakyReLUOptions().negative_slope(0.2));
  record("leaky_relu", leaky(torch::linspace(-1, 1, 5)));
  torch::nn::GroupNorm gn(torch::nn::GroupNormOptions(2, 4));
  record("group_norm", gn(counting(2, 4).view({2, 4, 1})));
  torch::nn::Conv1d conv1d(torch::nn::Conv1dOptions(2, 1, 2));
  fill_parameters(*conv1d);
  record("conv1d", conv1d(counting(2, 3).view({1, 2, 3})));
}

SNIPPET(functional) {
  auto x = torch::linspace(-1, 1, 6).view({2, 3});
  record("relu", F::relu(x));
  record("leaky_relu", F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.1)));
  record("gelu", F::gelu(x));
  record("dropout_eval", F::dropout(x, F::DropoutFuncOptions().p(0.5).training(false)));
  auto zeroed = F::dropout(torch::ones({1000}), F::DropoutFuncOptions().p(1.0).training(true));
  record("dropout_all", zeroed.sum());
  record("linear", F::linear(x, torch::ones({2, 3}), torch::tensor({0.5f, -0.5f})));
  record("normalize_like", x / x.norm(2, {1}, true));
}

SNIPPET(losses) {
  auto logits = counting(3, 4) - 1;
  auto target = torch::tensor({1, 0, 3});
  record("cross_entropy", F::cross_entropy(logits, target));
  record("cross_entropy_module", torch::nn::CrossEntropyLoss()(logits, target));
  record("cross_entropy_sum",
         F::cross_entropy(logits, target, F::CrossEntropyFuncOptions().reduction(torch::kSum)));
  record("label_smoothing",
         F::cross_entropy(logits, target, F::CrossEntropyFuncOptions().label_smoothing(0.1)));
  record("nll", F::nll_loss(F::log_softmax(logits, 1), target));
  record("mse", F::mse_loss(logits, torch::zeros_like(logits)));
  record("mse_module", torch::nn::MSELoss()(logits, torch::ones_like(logits)));
}

SNIPPET(init) {
  auto w = torch::empty({2, 3});
  torch::nn::init::constant_(w, 0.5);
  record("constant", w);
  torch::nn::init::zeros_(w);
  record("zeros", w);
  torch::nn::init::ones_(w);
  record("ones", w);
  torch::manual_seed(0);
  auto u = torch::empty({100, 100});
  torch::nn::init::kaiming_uniform_(u);
  record("kaiming_bound_respected", u.abs().max().item<float>() <= std::sqrt(6.0f / 100) ? 1.0 : 0.0);
}

SNIPPET(train_eval_modes) {
  torch::nn::Sequential model(torch::nn::Linear(2, 2), torch::nn::Dropout(0.5));
  model->eval();
  record("eval", model->is_training() ? 1.0 : 0.0);
  model->train(true);
  record("train", model->is_training() ? 1.0 : 0.0);
  std::vector<std::string> names;
  for (const auto& child : model->named_children()) names.push_back(child.key());
  record("children", names);
}

// ---- optim ----

namespace {
// Three steps of `optimizer` on a small regression problem; the final parameters.
template <typename Optimizer, typename Options>
torch::Tensor train_three_steps(const Options& options) {
  torch::nn::Linear model(3, 2);
  fill_parameters(*model);
  Optimizer optimizer(model->parameters(), options);
  auto x = counting(4, 3);
  auto y = torch::tensor({{1.0f, 0.0f}, {0.0f, 1.0f}, {1.0f, 1.0f}, {0.5f, -1.0f}});
  for (int step = 0; step < 3; ++step) {
    optimizer.zero_grad();
    auto loss = F::mse_loss(model(x), y);
    loss.backward();
    optimizer.step();
  }
  return torch::cat({model->weight.flatten(), model->bias});
}
}  // namespace

SNIPPET(optimizers) {
  record("sgd", train_three_steps<torch::optim::SGD>(torch::optim::SGDOptions(0.1)));
  record("sgd_momentum",
         train_three_steps<torch::optim::SGD>(torch::optim::SGDOptions(0.1).momentum(0.9).nesterov(true)));
  record("sgd_weight_decay",
         train_three_steps<torch::optim::SGD>(torch::optim::SGDOptions(0.05).momentum(0.5).weight_decay(1e-2)));
  record("adam", train_three_steps<torch::optim::Adam>(torch::optim::AdamOptions(1e-2)));
  record("adam_betas",
         train_three_steps<torch::optim::Adam>(torch::optim::AdamOptions(1e-2).betas(std::make_tuple(0.8, 0.9))));
  record("adamw",
         train_three_steps<torch::optim::AdamW>(torch::optim::AdamWOptions(1e-2).weight_decay(0.1)));
}

SNIPPET(clip_grad_norm) {
  torch::nn::Linear model(3, 2);
  fill_parameters(*model);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.5));
  for (int step = 0; step < 3; ++step) {
    optimizer.zero_grad();
    auto loss = model(counting(2, 3) * 10).pow(2).sum();
    loss.backward();
    double total_norm = torch::nn::utils::clip_grad_norm_(model->parameters(), 1.0);
    if (step == 0) record("total_norm", total_norm);
    optimizer.step();
  }
  record("weight", model->weight);
  record("lr", optimizer.param_groups()[0].options().get_lr());
}

SNIPPET(evaluation_accuracy) {
  torch::nn::Sequential model(torch::nn::Linear(4, 3), torch::nn::Softmax(1));
  fill_parameters(*model);
  model->eval();
  torch::NoGradGuard no_grad;
  auto inputs = counting(6, 4) - 2;
  auto targets = torch::tensor({0, 2, 2, 1, 2, 0});
  auto predictions = model->forward(inputs).argmax(1);
  auto correct = predictions.eq(targets).sum().item<int64_t>();
  record("predictions", predictions);
  record("accuracy", static_cast<double>(correct) / targets.size(0));
  record("requires_grad", model->forward(inputs).requires_grad() ? 1.0 : 0.0);
}

// ---- data ----

struct SquaresDataset : torch::data::datasets::Dataset<SquaresDataset> {
  torch::data::Example<> get(size_t index) override {
    auto x = torch::full({2}, static_cast<double>(index));
    return {x, x.pow(2).sum()};
  }
  torch::optional<size_t> size() const override { return 10; }
};

SNIPPET(data_loader) {
  auto dataset = SquaresDataset().map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      std::move(dataset), torch::data::DataLoaderOptions().batch_size(4));
  std::vector<double> batch_sizes;
  torch::Tensor last_target;
  for (auto& batch : *loader) {
    batch_sizes.push_back(static_cast<double>(batch.data.size(0)));
    last_target = batch.target;
  }
  record("batch_sizes", torch::tensor(batch_sizes));
  record("last_target", last_target);
}

// ---- Save and load ----

SNIPPET(save_load_tensor) {
  auto x = counting(2, 3);
  torch::save(x, dir + "/tensor.pt");
  torch::Tensor y;
  torch::load(y, dir + "/tensor.pt");
  record("loaded", y);
  std::vector<torch::Tensor> tensors = {x, torch::arange(3)};
  torch::save(tensors, dir + "/tensors.pt");
  std::vector<torch::Tensor> loaded;
  torch::load(loaded, dir + "/tensors.pt");
  record("vector_size", static_cast<double>(loaded.size()));
  record("vector_1", loaded[1]);
}

SNIPPET(save_load_module_optimizer) {
  auto make = [] { return torch::nn::Sequential(torch::nn::Linear(3, 4), torch::nn::Tanh(), torch::nn::Linear(4, 1)); };
  auto model = make();
  fill_parameters(*model);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(0.05));
  auto x = counting(5, 3);
  auto step = [&](torch::nn::Sequential& m, torch::optim::Adam& opt) {
    opt.zero_grad();
    auto loss = m->forward(x).pow(2).mean();
    loss.backward();
    opt.step();
  };
  step(model, optimizer);
  torch::save(model, dir + "/model.pt");
  torch::save(optimizer, dir + "/optimizer.pt");
  step(model, optimizer);

  auto restored = make();
  torch::load(restored, dir + "/model.pt");
  torch::optim::Adam restored_optimizer(restored->parameters(), torch::optim::AdamOptions(0.05));
  torch::load(restored_optimizer, dir + "/optimizer.pt");
  step(restored, restored_optimizer);
  record("original", model->forward(x));
  record("restored", restored->forward(x));
}

// ---- Devices and modes ----

SNIPPET(devices) {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  torch::nn::Linear model(2, 2);
  fill_parameters(*model);
  model->to(device);
  auto x = torch::ones({1, 2}).to(device);
  record("output", model(x).to(torch::kCPU));
  torch::Device cpu("cpu");
  record("is_cpu", cpu.is_cpu() ? 1.0 : 0.0);
  record("tensor_on_cpu", torch::zeros({1}, torch::TensorOptions().device(torch::kCPU)).device().is_cpu() ? 1.0 : 0.0);
}

SNIPPET(random_shapes) {
  torch::manual_seed(42);
  auto r = torch::randn({3, 4});
  record("randn_shape", torch::tensor(r.sizes().vec()));
  auto u = torch::rand({1000});
  record("rand_in_range", (u.min().item<float>() >= 0 && u.max().item<float>() < 1) ? 1.0 : 0.0);
  auto i = torch::randint(0, 5, {1000});
  record("randint_range", (i.min().item<int64_t>() >= 0 && i.max().item<int64_t>() < 5) ? 1.0 : 0.0);
  record("randint_dtype", i.scalar_type() == torch::kLong ? 1.0 : 0.0);
  auto p = torch::randperm(6);
  record("randperm_sum", p.sum());
}
