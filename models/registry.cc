#include "models/registry.h"

#include <fmt/format.h>

#include <functional>

#include "models/airbench_net.h"
#include "models/cifar_resnet.h"
#include "models/gpt.h"
#include "models/lenet.h"
#include "models/mlp.h"
#include "models/resnet18.h"
#include "tensor/error.h"

namespace brisk::models {
namespace {

// The images of MNIST-format and of CIFAR-10 datasets.
constexpr ImageShape kMnistImage{1, 28, 28};
constexpr ImageShape kCifarImage{3, 32, 32};

struct ModelEntry {
  std::string name;
  std::optional<ImageShape> input;  // the only image shape it takes; nullopt: any, or none
  // An image model's constructor, or a language model's (the other one empty).
  std::function<std::shared_ptr<nn::Module>(const ImageShape& image, int64_t num_classes)> make;
  // shard_units' modules by path; "layer1.*": each child of layer1.
  std::vector<std::string> units;
  std::function<std::shared_ptr<nn::Module>(const GPTConfig& config)> make_language;
};

const std::vector<ModelEntry>& model_table() {
  static const std::vector<ModelEntry> table{
      {"lenet",
       kMnistImage,
       [](const ImageShape&, int64_t classes) { return LeNet5(classes).ptr(); },
       {"conv1", "conv2", "fc1", "fc2", "fc3"}},
      {"mlp",
       std::nullopt,
       [](const ImageShape& image, int64_t classes) { return MLP(MLPOptions(image.numel(), classes)).ptr(); },
       {"layers.*"}},
      {"resnet20",
       kCifarImage,
       [](const ImageShape&, int64_t classes) { return resnet20(classes).ptr(); },
       {"layer1.*", "layer2.*", "layer3.*"}},
      {"resnet32",
       kCifarImage,
       [](const ImageShape&, int64_t classes) { return resnet32(classes).ptr(); },
       {"layer1.*", "layer2.*", "layer3.*"}},
      {"resnet56",
       kCifarImage,
       [](const ImageShape&, int64_t classes) { return resnet56(classes).ptr(); },
       {"layer1.*", "layer2.*", "layer3.*"}},
      {"resnet18",
       kCifarImage,
       [](const ImageShape&, int64_t classes) { return ResNet18(ResNet18Options().num_classes(classes)).ptr(); },
       {"layer1.*", "layer2.*", "layer3.*", "layer4.*"}},
      {"airbench",
       kCifarImage,
       [](const ImageShape&, int64_t classes) { return AirbenchNet(AirbenchNetOptions().num_classes(classes)).ptr(); },
       {"group1", "group2", "group3"}},
      {"gpt", std::nullopt, nullptr, {"blocks.*"}, [](const GPTConfig& config) { return GPT(config).ptr(); }},
  };
  return table;
}

const ModelEntry& find_model(const std::string& name) {
  for (const ModelEntry& entry : model_table()) {
    if (entry.name == name) return entry;
  }
  std::string names;
  for (const std::string& known : model_names()) names += (names.empty() ? "" : ", ") + known;
  BRISK_FAIL("unknown model \"{}\" (expected one of {})", name, names);
}

}  // namespace

std::string ImageShape::str() const { return fmt::format("{}x{}x{}", channels, height, width); }

bool ImageShape::operator==(const ImageShape& other) const {
  return channels == other.channels && height == other.height && width == other.width;
}

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const ModelEntry& entry : model_table()) names.push_back(entry.name);
  return names;
}

std::optional<ImageShape> model_input(const std::string& name) { return find_model(name).input; }

std::shared_ptr<nn::Module> make_model(const std::string& name, const ImageShape& image, int64_t num_classes) {
  const ModelEntry& entry = find_model(name);
  BRISK_CHECK(entry.make, "--model {} is a language model: it reads text (--data-file), not images", name);
  if (entry.input && *entry.input != image) {
    std::string fitting;
    for (const ModelEntry& other : model_table()) {
      if (other.make && (!other.input || *other.input == image)) fitting += (fitting.empty() ? "" : ", ") + other.name;
    }
    BRISK_FAIL("--model {} takes {} images, and the dataset's are {}; models for them: {}", name, entry.input->str(),
               image.str(), fitting);
  }
  return entry.make(image, num_classes);
}

bool is_language_model(const std::string& name) { return static_cast<bool>(find_model(name).make_language); }

std::shared_ptr<nn::Module> make_language_model(const std::string& name, const GPTConfig& config) {
  const ModelEntry& entry = find_model(name);
  BRISK_CHECK(entry.make_language, "--model {} is an image model, not a language model", name);
  return entry.make_language(config);
}

namespace {

// Whether module path `path` is `pattern`'s: the same path, or for "a.b.*" a child of a.b.
bool matches_unit(const std::string& pattern, const std::string& path) {
  const size_t n = pattern.size();
  if (n < 2 || pattern.compare(n - 2, 2, ".*") != 0) return path == pattern;
  const std::string parent = pattern.substr(0, n - 1);  // "layer1."
  return path.size() > parent.size() && path.compare(0, parent.size(), parent) == 0 &&
         path.find('.', parent.size()) == std::string::npos;
}

}  // namespace

std::vector<std::shared_ptr<nn::Module>> shard_units(const std::string& name, nn::Module& model) {
  const ModelEntry& entry = find_model(name);
  std::vector<std::shared_ptr<nn::Module>> units;
  for (const auto& item : model.named_modules(/*include_self=*/false)) {
    for (const std::string& pattern : entry.units) {
      if (matches_unit(pattern, item.key())) {
        units.push_back(item.value());
        break;
      }
    }
  }
  return units;
}

}  // namespace brisk::models
