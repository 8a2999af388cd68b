#pragma once
// The models train_mnist can train, behind one type: the module (parameters, train/eval,
// to(device), state_dict) and its forward.
#include <functional>
#include <memory>
#include <string>

#include "nn/module.h"

namespace brisk::train {

struct Classifier {
  std::shared_ptr<nn::Module> module;
  // images [N, 1, 28, 28] -> logits [N, num_classes]
  std::function<Tensor(const Tensor&)> forward;
};

// "lenet" (models::LeNet5) or "mlp" (models::MLP, 784-256-128-classes). Weights are drawn
// from brisk::default_generator(). Raises brisk::Error for another name.
Classifier make_classifier(const std::string& name, int64_t num_classes);

}  // namespace brisk::train
