#include "tests/models/model_fixture.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "nn/functional.h"
#include "optim/sgd.h"
#include "tests/models/pattern_weights.h"

namespace brisk::test {

namespace {

constexpr int64_t kImageSize = 32;

// Image i has label (3 * i + 1) % num_classes, as the generator's labels().
Tensor fixture_labels(int64_t batch, int64_t num_classes) {
  std::vector<int64_t> labels;
  for (int64_t i = 0; i < batch; ++i) labels.push_back((3 * i + 1) % num_classes);
  return tensor(labels, {batch});
}

std::vector<double> as_doubles(const Tensor& t) { return t.to(kFloat64).contiguous().flatten().to_vector<double>(); }

// Elementwise |got - want| <= tolerance * (1 + |want|).
void require_close(const std::vector<double>& got, const std::vector<double>& want, double tolerance,
                   const std::string& what) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO(what << " element " << i << ": got " << got[i] << ", PyTorch " << want[i]);
    REQUIRE(std::abs(got[i] - want[i]) <= tolerance * (1.0 + std::abs(want[i])));
  }
}

void require_close(const Tensor& got, const Tensor& want, double tolerance, const std::string& what) {
  REQUIRE(got.sizes() == want.sizes());
  require_close(as_doubles(got), as_doubles(want), tolerance, what);
}

}  // namespace

ModelFixture::ModelFixture(const std::string& file) : file_(checkpoint::load_safetensors("tests/fixtures/" + file)) {}

const Tensor& ModelFixture::entry(const std::string& key) const {
  INFO("fixture entry " << key);
  REQUIRE(file_.tensors.contains(key));
  return file_.tensors.at(key);
}

void ModelFixture::check_layout(const nn::Module& model, const std::string& prefix) const {
  std::ostringstream layout;
  for (const auto& [name, t] : model.state_dict()) {
    if (layout.tellp() > 0) layout << "\n";
    layout << name << " [";
    for (int64_t d = 0; d < t.dim(); ++d) layout << (d > 0 ? ", " : "") << t.size(d);
    layout << "]";
  }
  REQUIRE(file_.metadata.count(prefix + ".state_dict") == 1);
  REQUIRE(layout.str() == file_.metadata.at(prefix + ".state_dict"));
}

void ModelFixture::check_forward(nn::Module& model, const std::string& prefix) const {
  const Tensor& want_train = entry(prefix + ".forward.train_logits");
  const Tensor images = pattern_images(want_train.size(0), 3, kImageSize);
  model.to(kFloat32);
  set_pattern_weights(model);
  NoGradGuard no_grad;
  // Float32 against PyTorch's float64: about 2e-6 at worst today (ResNet-18); the margin leaves
  // room for other float32 convolution algorithms.
  const double tolerance = 3e-5;
  model.train();
  require_close(model.forward(images), want_train, tolerance, prefix + " train-mode logits");
  model.eval();
  require_close(model.forward(images), entry(prefix + ".forward.eval_logits"), tolerance, prefix + " eval-mode logits");
}

void ModelFixture::check_training_parity(nn::Module& module, const std::string& prefix) const {
  // About 1e-12 at worst today (the sums of the largest convolution weights).
  const double tolerance = 1e-10;
  const Tensor& want_eval = entry(prefix + ".parity.eval_logits");
  const int64_t batch = want_eval.size(0);
  const Tensor images = pattern_images(batch, 3, kImageSize).to(kFloat64);
  const Tensor labels = fixture_labels(batch, want_eval.size(1));
  module.to(kFloat64);
  set_pattern_weights(module);
  module.train();

  std::vector<double> sgd = as_doubles(entry(prefix + ".parity.sgd"));  // lr, momentum, weight_decay
  optim::SGD optimizer(module.parameters(),
                       optim::SGDOptions(sgd[0]).momentum(sgd[1]).weight_decay(sgd[2]).nesterov(true));
  const std::vector<double> want_losses = as_doubles(entry(prefix + ".parity.losses"));
  std::vector<double> losses;
  for (size_t step = 0; step < want_losses.size(); ++step) {
    optimizer.zero_grad();
    Tensor loss = nn::functional::cross_entropy(module.forward(images), labels);
    loss.backward();
    optimizer.step();
    losses.push_back(loss.item<double>());
  }
  require_close(losses, want_losses, tolerance, prefix + " losses");

  const int64_t samples = std::stoll(file_.metadata.at("samples"));
  std::vector<double> want_sums = as_doubles(entry(prefix + ".parity.sums"));
  nn::StateDict state = module.state_dict();
  REQUIRE(static_cast<size_t>(state.size()) == want_sums.size());
  size_t k = 0;
  for (const auto& [name, t] : state) {
    std::vector<double> values = as_doubles(t);
    const int64_t numel = static_cast<int64_t>(values.size()), m = std::min(numel, samples);
    std::vector<double> picked;
    for (int64_t j = 0; j < m; ++j) picked.push_back(values[j * numel / m]);
    require_close(picked, as_doubles(entry(prefix + ".parity.samples." + name)), tolerance, name);
    double sum = 0;
    for (double v : values) sum += v;
    require_close(std::vector<double>{sum}, std::vector<double>{want_sums[k++]}, tolerance, name + " sum");
  }

  NoGradGuard no_grad;
  module.eval();
  require_close(module.forward(images), want_eval, tolerance, prefix + " eval-mode logits after training");
}

}  // namespace brisk::test
