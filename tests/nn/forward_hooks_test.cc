// nn::Module's forward hooks: they run around module calls (holders, Sequential, models::MLP's
// layers), in order, see the output's Tensors, can be removed, and are skipped by a direct
// forward() call; an error raised by a hook names the module.
#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <vector>

#include "models/mlp.h"
#include "nn/nn.h"
#include "tensor/native/ops.h"

namespace brisk::nn {
namespace {

using Catch::Matchers::Contains;

TEST_CASE("forward hooks run around holder and Sequential calls, in registration order") {
  Linear fc(4, 2);
  std::vector<std::string> events;
  const size_t pre = fc->register_forward_pre_hook([&] { events.push_back("pre"); });
  fc->register_forward_hook([&](const std::vector<Tensor>& outputs) {
    REQUIRE(outputs.size() == 1);
    events.push_back("post " + std::to_string(outputs[0].size(1)));
  });
  fc->register_forward_pre_hook([&] { events.push_back("pre2"); });
  fc(native::ones({3, 4}));
  CHECK(events == std::vector<std::string>{"pre", "pre2", "post 2"});

  events.clear();
  Sequential seq(fc, ReLU());
  seq(native::ones({3, 4}));
  CHECK(events == std::vector<std::string>{"pre", "pre2", "post 2"});

  events.clear();
  fc->forward(native::ones({3, 4}));  // a direct call, as torch's module.forward(x)
  CHECK(events.empty());

  CHECK(fc->remove_forward_hook(pre));
  CHECK_FALSE(fc->remove_forward_hook(pre));
  fc(native::ones({3, 4}));
  CHECK(events == std::vector<std::string>{"pre2", "post 2"});
}

TEST_CASE("models::MLP calls its layers as modules, so their hooks run") {
  models::MLP mlp(models::MLPOptions(6, 3).hidden({5}));
  int calls = 0;
  for (const auto& layer : mlp->layers->children()) layer->register_forward_pre_hook([&] { ++calls; });
  mlp->forward(native::ones({2, 6}));
  CHECK(calls == 2);
}

TEST_CASE("forward_output_tensors: a Tensor, a vector, a tuple's Tensors, else none") {
  Tensor a = native::ones({1});
  Tensor b = native::zeros({2});
  CHECK(forward_output_tensors(a).size() == 1);
  CHECK(forward_output_tensors(std::vector<Tensor>{a, b}).size() == 2);
  auto tensors = forward_output_tensors(std::make_tuple(a, 3, b));
  REQUIRE(tensors.size() == 2);
  CHECK(tensors[1].is_same(b));
  CHECK(forward_output_tensors(42).empty());
}

TEST_CASE("an error raised by a forward hook names the module") {
  Linear fc(4, 2);
  fc->register_forward_pre_hook([] { BRISK_CHECK(false, "the hook refused"); });
  CHECK_THROWS_WITH(fc(native::ones({3, 4})), Contains("the hook refused") && Contains("Linear(in_features=4"));
}

}  // namespace
}  // namespace brisk::nn
