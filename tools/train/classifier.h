#pragma once
// The models the training program can train, behind one type: the module (parameters,
// train/eval, to(device), state_dict) and its forward. One table (classifier.cc) lists them
// with the images each takes; adding a model is one entry there.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nn/module.h"
#include "tools/train/training_data.h"

namespace brisk::train {

struct Classifier {
  std::shared_ptr<nn::Module> module;
  // images [N, C, H, W] -> logits [N, num_classes]
  std::function<Tensor(const Tensor&)> forward;
  // Distributed (tools/train/distributed_run.h: wrap_ddp): a guard under whose lifetime
  // backward accumulates gradients locally without all-reducing them (DDP's no_sync()), for
  // all micro-steps of an accumulated step but the last; null for a model that is not
  // distributed.
  std::function<std::shared_ptr<void>()> no_sync;
};

// The names make_classifier knows, in the order of its table.
std::vector<std::string> model_names();

// The images model `name` takes, when it takes only one shape; nullopt when it sizes itself
// from the dataset's images (the MLP).
std::optional<ImageShape> model_input(const std::string& name);

// Model `name` for images of shape `image` and `num_classes` classes. Weights are drawn from
// brisk::default_generator(). Raises brisk::Error for a name not in model_names(), and for a
// model that does not take `image`, naming both shapes and the models that would
// ("--model lenet takes 1x28x28 images and --dataset cifar10 has 3x32x32; models for it: ...").
Classifier make_classifier(const std::string& name, const ImageShape& image, int64_t num_classes);

}  // namespace brisk::train
