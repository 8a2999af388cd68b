// optim::GradScaler against torch.amp.GradScaler (tests/fixtures/grad_scaler.json, written by
// tools/fixtures/gen_amp_fixtures.py), and on its own.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "models/cifar_resnet.h"
#include "optim/clip_grad.h"
#include "optim/grad_scaler.h"
#include "optim/sgd.h"
#include "tensor/generator.h"
#include "tensor/native/ops.h"
#include "tensor/sim/sim_graph.h"

namespace brisk::optim {
namespace {

using json = nlohmann::json;

const json& fixture() {
  static const json data = [] {
    const char* path = "tests/fixtures/grad_scaler.json";
    std::ifstream in(path);
    BRISK_CHECK(in.good(), "GradScaler fixture: cannot open {} (run the test from the workspace or runfiles root)",
                path);
    return json::parse(in);
  }();
  return data;
}

Tensor fixture_tensor(const json& spec) {
  return tensor(spec.at("data").get<std::vector<double>>(), spec.at("shape").get<Shape>(), TensorOptions(kFloat64))
      .to(kFloat32);
}

TEST_CASE("GradScaler follows torch.amp.GradScaler's sequence through injected overflows") {
  const json& f = fixture();
  const json& o = f.at("options");
  GradScaler scaler(GradScalerOptions()
                        .init_scale(o.at("init_scale").get<double>())
                        .growth_factor(o.at("growth_factor").get<double>())
                        .backoff_factor(o.at("backoff_factor").get<double>())
                        .growth_interval(o.at("growth_interval").get<int64_t>()));
  Tensor x = fixture_tensor(f.at("x")), y = fixture_tensor(f.at("y"));
  Tensor w = fixture_tensor(f.at("params").at("w")).requires_grad_(true);
  Tensor b = fixture_tensor(f.at("params").at("b")).requires_grad_(true);
  SGD opt({w, b}, SGDOptions(f.at("lr").get<double>()));
  const json& steps = f.at("steps");
  REQUIRE(steps.size() == 14);
  int skipped = 0;
  for (size_t step = 0; step < steps.size(); ++step) {
    INFO("step " << step);
    opt.zero_grad();
    Tensor loss = (matmul(x, w.t()) + b - y).pow(2).mean();
    scaler.scale(loss).backward();
    const std::string key = std::to_string(step);
    if (f.at("overflow").contains(key)) {
      const double bad = f.at("overflow").at(key) == "inf" ? std::numeric_limits<double>::infinity()
                                                           : std::numeric_limits<double>::quiet_NaN();
      NoGradGuard no_grad;
      w.grad().select(0, 0).select(0, 0).fill_(bad);
    }
    scaler.unscale_(opt);
    clip_grad_norm_({w, b}, f.at("max_norm").get<double>());
    const bool stepped = scaler.step(opt);
    scaler.update();
    const json& expected = steps[step];
    CHECK(stepped == expected.at("stepped").get<bool>());
    CHECK(scaler.get_scale() == expected.at("scale").get<double>());
    CHECK(scaler.growth_tracker() == expected.at("growth_tracker").get<int64_t>());
    CHECK(allclose(w, fixture_tensor(expected.at("params").at("w")), 1e-5, 1e-6));
    CHECK(allclose(b, fixture_tensor(expected.at("params").at("b")), 1e-5, 1e-6));
    skipped += stepped ? 0 : 1;
  }
  CHECK(skipped == 3);
  const json& state = f.at("state_dict");
  const json mine = scaler.state_dict();
  for (const char* key : {"scale", "growth_factor", "backoff_factor"}) {
    CHECK(mine.at(key).get<double>() == state.at(key).get<double>());
  }
  CHECK(mine.at("growth_interval").get<int64_t>() == state.at("growth_interval").get<int64_t>());
  CHECK(mine.at("_growth_tracker").get<int64_t>() == state.at("_growth_tracker").get<int64_t>());
}

TEST_CASE("GradScaler: state_dict round trip restores the scale and the growth tracker") {
  Tensor w = ones({2}).requires_grad_(true);
  SGD opt({w}, SGDOptions(0.1));
  GradScaler scaler(GradScalerOptions().init_scale(8.0).growth_interval(5));
  for (int i = 0; i < 3; ++i) {
    opt.zero_grad();
    scaler.scale(w.sum()).backward();
    scaler.step(opt);
    scaler.update();
  }
  GradScaler restored(GradScalerOptions().init_scale(1.0));
  restored.load_state_dict(scaler.state_dict());
  CHECK(restored.get_scale() == 8.0);
  CHECK(restored.growth_tracker() == 3);
  CHECK(restored.state_dict() == scaler.state_dict());
  CHECK_THROWS_WITH(restored.load_state_dict(json{{"scale", 2.0}}), Catch::Contains("growth_factor"));
}

TEST_CASE("GradScaler: the unscaled gradients are the true ones, and misuse is named") {
  Tensor w = tensor<float>({1, 2, 3}, {3}).requires_grad_(true);
  SGD opt({w}, SGDOptions(0.1));
  GradScaler scaler(GradScalerOptions().init_scale(1024.0));
  scaler.scale((w * w).sum()).backward();
  CHECK(allclose(w.grad(), tensor<float>({2048, 4096, 6144}, {3})));
  scaler.unscale_(opt);
  CHECK(allclose(w.grad(), tensor<float>({2, 4, 6}, {3})));
  CHECK_THROWS_WITH(scaler.unscale_(opt), Catch::Contains("already been called"));
  CHECK(scaler.step(opt));
  CHECK_THROWS_WITH(scaler.step(opt), Catch::Contains("step() has already been called"));
  CHECK_THROWS_WITH(scaler.unscale_(opt), Catch::Contains("after step()"));
  scaler.update();
  CHECK_THROWS_WITH(scaler.update(), Catch::Contains("without an unscale_() or step()"));
  CHECK_THROWS_WITH(GradScaler(GradScalerOptions().backoff_factor(1.5)), Catch::Contains("backoff_factor"));
}

TEST_CASE("GradScaler: disabled, it passes everything through") {
  Tensor w = ones({2}).requires_grad_(true);
  SGD opt({w}, SGDOptions(0.5));
  GradScaler scaler(GradScalerOptions().enabled(false));
  Tensor loss = w.sum();
  CHECK(scaler.scale(loss).is_same(loss));
  loss.backward();
  CHECK(scaler.step(opt));
  scaler.update();
  CHECK(allclose(w, full({2}, 0.5)));
  CHECK(scaler.get_scale() == 1.0);
  CHECK(scaler.state_dict().empty());
}

TEST_CASE("GradScaler: gradients on the simulated device are checked there, without host reads") {
  Device sim = sim_device(0);
  Tensor w = ones({4}).to(sim).detach().requires_grad_(true);
  SGD opt({w}, SGDOptions(1.0));
  GradScaler scaler(GradScalerOptions().init_scale(4.0));
  scaler.scale(w.sum()).backward();
  CHECK(scaler.step(opt));
  scaler.update();
  CHECK(allclose(w.to(kCPU), zeros({4})));
  opt.zero_grad();
  scaler.scale((w * std::numeric_limits<double>::infinity()).sum()).backward();
  CHECK_FALSE(scaler.step(opt));
  scaler.update();
  CHECK(scaler.get_scale() == 2.0);
  CHECK(allclose(w.to(kCPU), zeros({4})));
}

// What a sharded optimizer (dist::Zero2Optimizer) offers: its flags reduced with the other
// ranks'; here another rank "saw" an overflow, so this one must skip too.
struct ShardedSGD {
  std::vector<Tensor> params() const { return sgd->param_groups()[0].params(); }
  void step() { sgd->step(); }
  Tensor all_reduce_found_inf(const std::vector<Tensor>& flags) const {
    seen_flags = flags.size();
    ++calls;
    return full({1}, other_rank_overflowed ? 1.0 : 0.0);
  }
  SGD* sgd;
  bool other_rank_overflowed;
  mutable size_t seen_flags = 0;
  mutable int calls = 0;
};

TEST_CASE("GradScaler: a sharded optimizer's all_reduce_found_inf decides the step, once per unscale_") {
  Tensor w = ones({2}).requires_grad_(true);
  SGD sgd({w}, SGDOptions(0.5));
  GradScaler scaler(GradScalerOptions().init_scale(4.0));
  for (bool overflowed : {true, false}) {
    ShardedSGD sharded{&sgd, overflowed};
    sgd.zero_grad();
    scaler.scale(w.sum()).backward();  // finite here
    scaler.unscale_(sharded);
    CHECK(sharded.calls == 1);
    CHECK(sharded.seen_flags == 1);  // this rank's flag, of its one device
    CHECK(scaler.step(sharded) == !overflowed);
    CHECK(sharded.calls == 1);
    scaler.update();
  }
  CHECK(scaler.get_scale() == 2.0);
  CHECK(allclose(w, full({2}, 0.5)));  // stepped once
}

TEST_CASE("GradScaler refuses 16-bit gradients, naming their dtype") {
  Tensor w = ones({2}).to(kFloat16).requires_grad_(true);
  SGD opt({w}, SGDOptions(0.1));
  GradScaler scaler;
  scaler.scale(w.sum()).backward();
  CHECK_THROWS_WITH(scaler.unscale_(opt), Catch::Contains("float16") && Catch::Contains("float32"));
}

TEST_CASE(
    "GradScaler: unscale_ of ResNet-20's gradients is one kernel per device and dtype, with the per-tensor bits") {
  const Device sim = sim_device(0);
  manual_seed(0);
  models::CIFARResNet model = models::resnet20();
  model->to(sim);
  std::vector<Tensor> params = model->parameters();
  // Each gradient also unscaled by the per-tensor op, one call per gradient; one holds an inf.
  const double scale = 1024.0;
  std::vector<Tensor> per_tensor;
  Tensor per_tensor_found = zeros({1}, TensorOptions(kFloat32).device(sim));
  Generator gen(1);
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor grad = randn(params[i].sizes(), {}, &gen) * scale;
    if (i == 7) {
      NoGradGuard no_grad;
      grad.view({-1}).select(0, 3).fill_(std::numeric_limits<double>::infinity());
    }
    params[i].set_grad(grad.to(sim));
    per_tensor.push_back(grad.to(sim));
    native::non_finite_check_and_unscale_(per_tensor.back(), per_tensor_found, static_cast<float>(1.0 / scale));
  }
  SGD opt(params, SGDOptions(0.1));
  GradScaler scaler(GradScalerOptions().init_scale(scale));
  sim::reset_kernel_counts();
  scaler.unscale_(opt);
  CHECK(sim::kernel_counts().run == 2);  // found_inf's zeros, then one unscale of every gradient
  for (size_t i = 0; i < params.size(); ++i) {
    INFO("gradient " << i);
    Tensor mine = params[i].grad().to(kCPU), theirs = per_tensor[i].to(kCPU);
    CHECK(std::memcmp(mine.raw_data(), theirs.raw_data(), mine.nbytes()) == 0);
  }
  CHECK(per_tensor_found.to(kCPU).item<float>() == 1.0f);
  CHECK_FALSE(scaler.step(opt));  // the inf found: the step is skipped
}

}  // namespace
}  // namespace brisk::optim
