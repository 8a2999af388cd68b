// nn::Module: registration and naming, traversal, state_dict round trips and strict-load
// errors, in-place to(), train/eval, zero_grad, containers, holders and printing.
#include <catch2/catch.hpp>

#include <sstream>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "nn/nn.h"

namespace brisk::nn {
namespace {

using Catch::Matchers::Contains;

struct NetImpl : Module {
  NetImpl() {
    fc1 = register_module("fc1", Linear(4, 3));
    bn = register_module("bn", BatchNorm1d(3));
    fc2 = register_module("fc2", Linear(LinearOptions(3, 2).bias(false)));
    scale = register_parameter("scale", ones({1}));
    step = register_buffer("step", zeros({}, kInt64));
  }
  Tensor forward(const Tensor& x) override { return fc2(relu(bn(fc1(x)))) * scale; }

  Linear fc1{nullptr};
  BatchNorm1d bn{nullptr};
  Linear fc2{nullptr};
  Tensor scale, step;
};
BRISK_MODULE(Net);

TEST_CASE("parameters, buffers and children are named with dots in registration order") {
  Net net;
  CHECK(net->named_parameters().keys() ==
        std::vector<std::string>{"scale", "fc1.weight", "fc1.bias", "bn.weight", "bn.bias", "fc2.weight"});
  CHECK(net->named_parameters(false).keys() == std::vector<std::string>{"scale"});
  CHECK(net->named_buffers().keys() ==
        std::vector<std::string>{"step", "bn.running_mean", "bn.running_var", "bn.num_batches_tracked"});
  CHECK(net->named_children().keys() == std::vector<std::string>{"fc1", "bn", "fc2"});
  CHECK(net->named_modules().keys() == std::vector<std::string>{"", "fc1", "bn", "fc2"});
  CHECK(net->modules(false).size() == 3);
  CHECK(net->parameters().size() == 6);
  for (const Tensor& p : net->parameters()) CHECK(p.requires_grad());
  for (const Tensor& b : net->buffers()) CHECK_FALSE(b.requires_grad());
  // The handles are the module's own tensors.
  CHECK(net->named_parameters()["fc1.weight"].is_same(net->fc1->weight));
  CHECK(net->name() == "Net");
  CHECK(net->fc1->name() == "Linear");
}

TEST_CASE("registration rejects bad and duplicate names and non-leaf parameters") {
  Module m;
  m.register_parameter("w", zeros({2}));
  CHECK_THROWS_WITH(m.register_buffer("w", zeros({2})), Contains("\"w\" is already taken"));
  CHECK_THROWS_WITH(m.register_parameter("a.b", zeros({2})), Contains("must not contain '.'"));
  CHECK_THROWS_WITH(m.register_parameter("", zeros({2})), Contains("must not be empty"));
  Tensor leaf = ones({2}, TensorOptions().requires_grad(true));
  CHECK_THROWS_WITH(m.register_parameter("b", leaf * 2), Contains("must be a leaf"));
  // A parameter registered without requires_grad stays frozen.
  CHECK_FALSE(m.register_parameter("frozen", zeros({2}), false).requires_grad());
}

TEST_CASE("shared modules and parameters are listed once by parameters() but by every name in state_dict") {
  struct TiedImpl : Module {
    TiedImpl() {
      a = register_module("a", Linear(2, 2));
      b = register_module("b", a);
    }
    Linear a{nullptr}, b{nullptr};
  };
  auto tied = std::make_shared<TiedImpl>();
  CHECK(tied->parameters().size() == 2);
  CHECK(tied->named_modules().keys() == std::vector<std::string>{"", "a"});
  CHECK(tied->state_dict().keys() == std::vector<std::string>{"a.weight", "a.bias", "b.weight", "b.bias"});
}

TEST_CASE("state_dict round trip restores every value, and the dict shares memory with the module") {
  Net source, target;
  {
    NoGradGuard no_grad;
    source->bn->running_mean.fill_(0.25);
    source->step.fill_(7);
  }
  StateDict state = source->state_dict();
  CHECK(state.keys() == std::vector<std::string>{"scale", "step", "fc1.weight", "fc1.bias", "bn.weight", "bn.bias",
                                                 "bn.running_mean", "bn.running_var", "bn.num_batches_tracked",
                                                 "fc2.weight"});
  CHECK_FALSE(state["fc1.weight"].requires_grad());
  CHECK(state["fc1.weight"].storage() == source->fc1->weight.storage());

  Tensor held = target->fc1->weight;
  target->load_state_dict(state);
  for (const auto& [name, value] : target->state_dict()) CHECK(equal(value, state[name]));
  // Loading copies into the existing tensors.
  CHECK(held.is_same(target->fc1->weight));
  CHECK(held.requires_grad());
  CHECK(target->step.item<int64_t>() == 7);
}

TEST_CASE("strict load_state_dict names missing, unexpected and mis-shaped keys") {
  Net net;
  StateDict state = net->state_dict();
  StateDict broken;
  for (const auto& [name, value] : state) {
    if (name == "fc1.bias" || name == "bn.running_var") continue;
    broken.insert(name, name == "fc2.weight" ? zeros({2, 5}) : value);
  }
  broken.insert("extra.weight", zeros({1}));
  try {
    net->load_state_dict(broken);
    FAIL("load_state_dict accepted a broken state dict");
  } catch (const Error& e) {
    std::string message = e.what();
    CHECK_THAT(message, Contains("Missing key(s) in state_dict: \"fc1.bias\", \"bn.running_var\""));
    CHECK_THAT(message, Contains("Unexpected key(s) in state_dict: \"extra.weight\""));
    CHECK_THAT(message, Contains("size mismatch for fc2.weight"));
    CHECK_THAT(message, Contains("shape [2, 5] from the state dict"));
    CHECK_THAT(message, Contains("in the current model is [2, 3]"));
  }
  // Non-strict loading skips missing and unexpected keys, but never a shape mismatch.
  CHECK_THROWS_WITH(net->load_state_dict(broken, false), Contains("size mismatch for fc2.weight"));
  broken.at("fc2.weight") = state["fc2.weight"];
  {
    NoGradGuard no_grad;
    broken.at("fc1.weight") = full({3, 4}, 0.5);
  }
  net->load_state_dict(broken, false);
  CHECK(equal(net->fc1->weight, full({3, 4}, 0.5)));
}

TEST_CASE("to(dtype) converts floating tensors in place and keeps the handles users hold") {
  Net net;
  Tensor weight = net->fc1->weight;
  Tensor running_mean = net->bn->running_mean;
  std::vector<float> before = weight.to_vector<float>();
  net->forward(randn({5, 4})).sum().backward();
  REQUIRE(weight.grad().defined());

  net->to(kFloat64);
  CHECK(weight.dtype() == kFloat64);
  CHECK(weight.is_same(net->fc1->weight));
  CHECK(weight.requires_grad());
  CHECK(weight.is_leaf());
  CHECK(weight.grad().dtype() == kFloat64);
  CHECK(running_mean.dtype() == kFloat64);
  CHECK(net->bn->num_batches_tracked.dtype() == kInt64);
  CHECK(net->step.dtype() == kInt64);
  std::vector<double> after = weight.to_vector<double>();
  for (size_t i = 0; i < before.size(); ++i) CHECK(after[i] == static_cast<double>(before[i]));

  // The converted module computes, and its gradients flow into the same handles.
  weight.set_grad(Tensor());
  net->forward(randn({5, 4}, kFloat64)).sum().backward();
  CHECK(weight.grad().dtype() == kFloat64);
  CHECK_THROWS_WITH(net->to(kInt64), Contains("floating point dtype"));
}

TEST_CASE("to(device) on the CPU keeps everything in place") {
  Net net;
  Tensor weight = net->fc1->weight;
  net->to(kCPU);
  CHECK(weight.is_same(net->fc1->weight));
  CHECK(weight.device() == kCPU);
}

TEST_CASE("train and eval reach every descendant") {
  Net net;
  CHECK(net->is_training());
  CHECK(net->bn->is_training());
  net->eval();
  CHECK_FALSE(net->is_training());
  CHECK_FALSE(net->fc1->is_training());
  CHECK_FALSE(net->bn->is_training());
  net->train();
  CHECK(net->bn->is_training());
}

TEST_CASE("zero_grad clears gradients to none or to zeros") {
  Net net;
  net->forward(randn({5, 4})).sum().backward();
  Tensor grad = net->fc1->weight.grad();
  REQUIRE(grad.defined());
  net->zero_grad(false);
  CHECK(net->fc1->weight.grad().is_same(grad));
  CHECK(equal(grad, zeros_like(grad)));
  net->zero_grad();
  for (const Tensor& p : net->parameters()) CHECK_FALSE(p.grad().defined());
}

TEST_CASE("forward through Module&: a model's override, a Sequential's, else an error naming the module") {
  manual_seed(0);
  Net net;
  net->eval();
  Tensor x = randn({5, 4});
  Module& model = *net;
  CHECK(equal(model.forward(x), net->forward(x)));
  Sequential seq(Linear(4, 3), ReLU());
  Module& chain = *seq;
  CHECK(equal(chain.forward(x), relu(seq->at<LinearImpl>(0).forward(x))));
  // A module that declares no forward of its own.
  Module bare;
  CHECK_THROWS_WITH(bare.forward(x), Contains("Module: no forward(const Tensor&) to call through nn::Module"));
}

TEST_CASE("Sequential chains forwards, names children by position and is indexable") {
  Sequential seq(Linear(4, 3), ReLU());
  seq->push_back(Linear(3, 2));
  seq->push_back("out", LogSoftmax(1));
  CHECK(seq->size() == 4);
  CHECK(seq->named_children().keys() == std::vector<std::string>{"0", "1", "2", "out"});
  CHECK(seq->named_parameters().keys() == std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"});
  Tensor x = randn({5, 4});
  auto& first = seq->at<LinearImpl>(0);
  auto& last = seq->at<LinearImpl>(2);
  Tensor expected = log_softmax(last.forward(relu(first.forward(x))), 1);
  CHECK(allclose(seq(x), expected));
  CHECK(seq[1]->name() == "ReLU");
  CHECK_THROWS_WITH(seq->at<LinearImpl>(1), Contains("index 1 is a ReLU"));
  CHECK_THROWS_WITH(seq[9], Contains("index 9 is out of range for a Sequential of 4 modules"));
  CHECK(equal(Sequential()->forward(x), x));
}

TEST_CASE("ModuleList registers its modules for traversal") {
  ModuleList list(Linear(2, 2), ReLU());
  list->push_back(Linear(2, 1));
  CHECK(list->size() == 3);
  CHECK(list->named_parameters().keys() == std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"});
  size_t linears = 0;
  for (const auto& m : *list) linears += m->as<LinearImpl>() != nullptr;
  CHECK(linears == 2);
  CHECK(list->at<LinearImpl>(2).options.out_features() == 1);
}

TEST_CASE("an empty holder errors when used") {
  Linear fc{nullptr};
  CHECK(fc.is_empty());
  CHECK_THROWS_WITH(fc->forward(zeros({1, 1})), Contains("empty module holder"));
  Module m;
  CHECK_THROWS_WITH(m.register_module("fc", fc), Contains("is empty"));
}

TEST_CASE("modules print as a tree like PyTorch") {
  Sequential seq(Conv2d(Conv2dOptions(1, 6, 5).padding(2)), ReLU(), MaxPool2d(2), Flatten(), Linear(6, 2));
  std::ostringstream text;
  text << *seq;
  CHECK(text.str() ==
        "Sequential(\n"
        "  (0): Conv2d(1, 6, kernel_size=[5, 5], stride=[1, 1], padding=[2, 2])\n"
        "  (1): ReLU\n"
        "  (2): MaxPool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0], dilation=[1, 1], ceil_mode=false)\n"
        "  (3): Flatten(start_dim=1, end_dim=-1)\n"
        "  (4): Linear(in_features=6, out_features=2, bias=true)\n"
        ")");
}

TEST_CASE("activation and dropout layers print their arguments") {
  Sequential seq(LeakyReLU(0.2), ELU(0.5), Softplus(2.0, 10.0), Hardswish(), Dropout2d(0.25));
  std::ostringstream text;
  text << *seq;
  CHECK(text.str() == "Sequential(\n"
                      "  (0): LeakyReLU(negative_slope=0.2)\n"
                      "  (1): ELU(alpha=0.5)\n"
                      "  (2): Softplus(beta=2, threshold=10)\n"
                      "  (3): Hardswish\n"
                      "  (4): Dropout2d(p=0.25)\n"
                      ")");
  CHECK_THROWS_WITH(Softplus(0.0), Contains("Softplus: beta must not be 0"));
}

// A model with a layer that gets the wrong number of features: fc1 gives 6, body.2 wants 5.
struct MisfitImpl : Module {
  MisfitImpl() {
    fc1 = register_module("fc1", Linear(8, 6));
    body = register_module("body", Sequential(Linear(6, 4), ReLU(), Linear(5, 2)));
  }
  Tensor forward(const Tensor& x) { return body(fc1(x)); }

  Linear fc1{nullptr};
  Sequential body{nullptr};
};
BRISK_MODULE(Misfit);

TEST_CASE("an error inside a model names the layer, by its name in its parent and its configuration") {
  Misfit model;
  CHECK(model->fc1->name_in_parent() == "fc1");
  CHECK(model->name_in_parent().empty());
  CHECK_THROWS_WITH(model(zeros({3, 8})),
                    Contains("linear: input [3, 4] float32 cpu should have 5 features in its last dim (weight [2, 5])\n"
                             "  in 2: Linear(in_features=5, out_features=2, bias=true)\n"
                             "  in body: Sequential\n"
                             "  in Misfit"));
  CHECK_THROWS_WITH(model(zeros({3, 7})),
                    Contains("should have 8 features") && Contains("\n  in fc1: Linear(in_features=8, out_features=6, "
                                                                   "bias=true)\n  in Misfit"));
  // A module on its own, never registered, is named by its configuration.
  CHECK_THROWS_WITH(Linear(3, 2)(zeros({1, 4})), Contains("\n  in Linear(in_features=3, out_features=2, bias=true)"));
}

}  // namespace
}  // namespace brisk::nn
