#include "tools/train/classifier.h"

#include "models/airbench_net.h"
#include "models/cifar_resnet.h"
#include "models/lenet.h"
#include "models/mlp.h"
#include "models/resnet18.h"
#include "tensor/error.h"

namespace brisk::train {
namespace {

// The images of MNIST-format and of CIFAR-10 datasets.
constexpr ImageShape kMnistImage{1, 28, 28};
constexpr ImageShape kCifarImage{3, 32, 32};

// The Classifier of a module holder (models::LeNet5, ...) whose forward takes the images.
template <typename Holder>
Classifier classifier_of(const Holder& model) {
  return {model.ptr(), [m = model.ptr()](const Tensor& images) { return m->forward(images); }, nullptr};
}

struct ModelEntry {
  std::string name;
  std::optional<ImageShape> input;  // the only image shape it takes; nullopt: any
  std::function<Classifier(const ImageShape& image, int64_t num_classes)> make;
};

const std::vector<ModelEntry>& model_table() {
  static const std::vector<ModelEntry> table{
      {"lenet", kMnistImage, [](const ImageShape&, int64_t classes) { return classifier_of(models::LeNet5(classes)); }},
      {"mlp", std::nullopt,
       [](const ImageShape& image, int64_t classes) {
         return classifier_of(models::MLP(models::MLPOptions(image.numel(), classes)));
       }},
      {"resnet20", kCifarImage,
       [](const ImageShape&, int64_t classes) { return classifier_of(models::resnet20(classes)); }},
      {"resnet32", kCifarImage,
       [](const ImageShape&, int64_t classes) { return classifier_of(models::resnet32(classes)); }},
      {"resnet56", kCifarImage,
       [](const ImageShape&, int64_t classes) { return classifier_of(models::resnet56(classes)); }},
      {"resnet18", kCifarImage,
       [](const ImageShape&, int64_t classes) {
         return classifier_of(models::ResNet18(models::ResNet18Options().num_classes(classes)));
       }},
      {"airbench", kCifarImage,
       [](const ImageShape&, int64_t classes) {
         return classifier_of(models::AirbenchNet(models::AirbenchNetOptions().num_classes(classes)));
       }},
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

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const ModelEntry& entry : model_table()) names.push_back(entry.name);
  return names;
}

std::optional<ImageShape> model_input(const std::string& name) { return find_model(name).input; }

Classifier make_classifier(const std::string& name, const ImageShape& image, int64_t num_classes) {
  const ModelEntry& entry = find_model(name);
  if (entry.input && *entry.input != image) {
    std::string fitting;
    for (const ModelEntry& other : model_table()) {
      if (!other.input || *other.input == image) fitting += (fitting.empty() ? "" : ", ") + other.name;
    }
    BRISK_FAIL("--model {} takes {} images, and the dataset's are {}; models for them: {}", name, entry.input->str(),
               image.str(), fitting);
  }
  return entry.make(image, num_classes);
}

}  // namespace brisk::train
