#pragma once
// The reference models by name, for programs that pick one on the command line (the training
// program's --model): one table (registry.cc) lists each with the images it takes, or as a
// language model that reads bytes; adding a model is one entry there.
//
//   std::shared_ptr<nn::Module> model = models::make_model("resnet20", {3, 32, 32}, 10);
//   Tensor logits = model->forward(images);  // nn::Module's virtual forward
//
//   std::shared_ptr<nn::Module> gpt = models::make_language_model("gpt", models::GPTConfig::preset("tiny"));
//   Tensor next = gpt->forward(tokens);  // int64 [B, T] -> logits [B, T, 256]
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/gpt_config.h"
#include "nn/module.h"

namespace brisk::models {

// The shape of one image, channels first.
struct ImageShape {
  int64_t channels = 0;
  int64_t height = 0;
  int64_t width = 0;

  int64_t numel() const { return channels * height * width; }
  // "3x32x32"
  std::string str() const;
  bool operator==(const ImageShape& other) const;
  bool operator!=(const ImageShape& other) const { return !(*this == other); }
};

// The names make_model knows, in the order of its table.
std::vector<std::string> model_names();

// The images model `name` takes, when it takes only one shape; nullopt when it sizes itself
// from the dataset's images (the MLP) or reads no images (a language model).
std::optional<ImageShape> model_input(const std::string& name);

// Model `name` for images of shape `image` and `num_classes` classes: images [N, C, H, W] ->
// logits [N, num_classes] through forward. Weights are drawn from brisk::default_generator().
// Raises brisk::Error for a name not in model_names(), for a language model, and for a model
// that does not take `image`, naming both shapes and the models that would ("--model lenet
// takes 1x28x28 images, and the dataset's are 3x32x32; models for them: ...").
std::shared_ptr<nn::Module> make_model(const std::string& name, const ImageShape& image, int64_t num_classes);

// Whether model `name` is a language model: int64 tokens [B, T] -> logits [B, T, vocab_size]
// ("gpt": models/gpt.h).
bool is_language_model(const std::string& name);

// Language model `name` of the sizes `config`; raises brisk::Error for a name that is not one.
std::shared_ptr<nn::Module> make_language_model(const std::string& name, const GPTConfig& config);

// The modules of `model` (made by make_model(name, ...)) that full sharding makes units of
// (dist::fully_shard), in named_modules' order; none holds another. The root is not among
// them: the caller shards it last, over what they leave. MLP: its layers; LeNet: its
// convolutions and linear layers; the ResNets: their BasicBlocks; airbench: its convolution
// groups; GPT: its blocks.
std::vector<std::shared_ptr<nn::Module>> shard_units(const std::string& name, nn::Module& model);

}  // namespace brisk::models
