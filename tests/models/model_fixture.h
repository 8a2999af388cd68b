#pragma once
// Checks of a CIFAR-10 model against PyTorch's results for its twin (models/torch_twins.py),
// read from a fixture of tools/fixtures/gen_cifar_models_fixtures.py (whose docstring lists the
// keys). Each model's entries carry a prefix, e.g. "resnet20".
//
//   ModelFixture fixture("cifar_resnet.safetensors");
//   fixture.check_layout(*models::resnet20(), "resnet20");
//   fixture.check_forward(*models::resnet20(), "resnet20");
//   fixture.check_training_parity(*models::resnet20(), "resnet20");
#include <string>

#include "checkpoint/safetensors.h"
#include "nn/module.h"
#include "tensor/tensor.h"

namespace brisk::test {

class ModelFixture {
 public:
  // tests/fixtures/<file>.
  explicit ModelFixture(const std::string& file);

  // The state_dict's names and shapes, in order, are the twin's.
  void check_layout(const nn::Module& model, const std::string& prefix) const;
  // A fresh float32 model with the pattern weights (tests/models/pattern_weights.h): its logits
  // in training mode, then in eval mode, match PyTorch's float64 ones to float32 accuracy.
  void check_forward(nn::Module& model, const std::string& prefix) const;
  // The model in float64 with the pattern weights, trained for the fixture's SGD steps in
  // training mode: every loss, the state_dict afterwards (parameters, running statistics,
  // batch counts) and the eval-mode logits match PyTorch's to 1e-10.
  void check_training_parity(nn::Module& model, const std::string& prefix) const;

 private:
  const Tensor& entry(const std::string& key) const;

  checkpoint::Safetensors file_;
};

}  // namespace brisk::test
