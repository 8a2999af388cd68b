// Every layer of nn/modules whose forward takes one tensor overrides nn::Module::forward: called
// through nn::Module& (as Sequential, DDP and the training loop call it) it gives what its own
// forward gives, in training and in evaluation. The losses, whose forward takes two tensors,
// have none: through nn::Module& they are an error naming them.
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "nn/nn.h"

namespace brisk::nn {
namespace {

using Catch::Matchers::Contains;

// The layer's forward called directly and through nn::Module&, from the same random state
// (Dropout draws its mask), agree in training and in evaluation.
template <typename Holder>
void check_forward_through_module(Holder layer, const Tensor& input) {
  Module& module = *layer;
  for (bool training : {true, false}) {
    INFO(module.name() << (training ? " in training" : " in evaluation"));
    module.train(training);
    manual_seed(7);
    Tensor direct = layer->forward(input);
    manual_seed(7);
    Tensor through_module = module.forward(input);
    CHECK(equal(through_module, direct));
  }
}

TEST_CASE("every one-tensor layer gives its own forward's result through nn::Module&") {
  manual_seed(0);
  Tensor features = randn({4, 6});
  Tensor sequence = randn({2, 3, 8});
  Tensor images = randn({2, 4, 6, 6});
  Tensor indices = randint(10, {3, 5});

  check_forward_through_module(ReLU(), features);
  check_forward_through_module(GELU("tanh"), features);
  check_forward_through_module(SiLU(), features);
  check_forward_through_module(LeakyReLU(0.2), features);
  check_forward_through_module(ELU(0.5), features);
  check_forward_through_module(Softplus(2.0, 10.0), features);
  check_forward_through_module(Hardswish(), features);
  check_forward_through_module(Tanh(), features);
  check_forward_through_module(Sigmoid(), features);
  check_forward_through_module(Softmax(1), features);
  check_forward_through_module(LogSoftmax(1), features);
  check_forward_through_module(BatchNorm1d(6), features);
  check_forward_through_module(BatchNorm2d(4), images);
  check_forward_through_module(Conv1d(3, 5, 3), sequence);
  check_forward_through_module(Conv2d(Conv2dOptions(4, 3, 3).padding(1)), images);
  check_forward_through_module(ConvTranspose2d(ConvTranspose2dOptions(4, 3, 3).stride(2)), images);
  check_forward_through_module(Dropout(0.5), features);
  check_forward_through_module(Dropout2d(0.5), images);
  check_forward_through_module(Embedding(10, 4), indices);
  check_forward_through_module(Flatten(), images);
  check_forward_through_module(GroupNorm(2, 4), images);
  check_forward_through_module(Linear(6, 3), features);
  check_forward_through_module(LayerNorm(LayerNormOptions({6})), features);
  check_forward_through_module(MaxPool2d(2), images);
  check_forward_through_module(AvgPool2d(2), images);
  check_forward_through_module(AdaptiveAvgPool2d(Size2(2, 3)), images);
  check_forward_through_module(Upsample(UpsampleOptions().scale_factor({2})), images);
}

TEST_CASE("a loss, whose forward takes two tensors, is an error through nn::Module& naming it") {
  Tensor logits = randn({4, 3});
  CrossEntropyLoss cross_entropy;
  NLLLoss nll;
  MSELoss mse;
  for (Module* loss : {static_cast<Module*>(cross_entropy.get()), static_cast<Module*>(nll.get()),
                       static_cast<Module*>(mse.get())}) {
    CHECK_THROWS_WITH(loss->forward(logits),
                      Contains(loss->name() + ": no forward(const Tensor&) to call through nn::Module"));
  }
}

}  // namespace
}  // namespace brisk::nn
