#include "tools/train/cifar_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "data/cifar10.h"
#include "data/file_bytes.h"
#include "data/tensor_dataset.h"
#include "data/transform_dataset.h"
#include "data/transforms/compose.h"
#include "data/transforms/normalize.h"
#include "data/transforms/random_crop.h"
#include "data/transforms/random_horizontal_flip.h"
#include "data/transforms/to_tensor.h"
#include "tensor/error.h"

namespace brisk::train {
namespace {

constexpr int64_t kSide = 32;
constexpr int64_t kCropPadding = 4;

// Raises, naming every file looked for and where the data comes from, unless each file of
// both sets is in `dir` or in `dir`/cifar-10-batches-bin (where data::CIFAR10 reads them).
void check_files(const std::string& dir) {
  std::vector<std::string> missing;
  for (bool train : {true, false}) {
    for (const std::string& name : data::CIFAR10::file_names(train)) {
      const std::string direct = dir + "/" + name, nested = dir + "/cifar-10-batches-bin/" + name;
      if (!data::file_exists(direct) && !data::file_exists(nested)) missing.push_back(direct + " or " + nested);
    }
  }
  if (missing.empty()) return;
  std::string list;
  for (const std::string& path : missing) list += "\n  " + path;
  BRISK_FAIL("--dataset cifar10: no CIFAR-10 data in {}; looked for these files and found none of each pair:{}\n"
             "Get the binary version of CIFAR-10 and unpack it there (it creates {}/cifar-10-batches-bin/):\n"
             "  mkdir -p {} && curl -L {} | tar -xz -C {}\n"
             "or write a synthetic set in CIFAR-10's format for a demo or a test:\n"
             "  bazel run //tools/data:make_synthetic_cifar10 -- --output-dir {}",
             dir, list, dir, dir, kCifar10Url, dir, dir);
}

data::Transform normalize() {
  return data::Normalize(std::vector<double>(kCifar10Mean.begin(), kCifar10Mean.end()),
                         std::vector<double>(kCifar10Std.begin(), kCifar10Std.end()));
}

// The first `limit` examples of `set` (all for 0), as uint8 [32, 32, 3] images with
// `transform` applied when each is loaded.
std::shared_ptr<const data::Dataset> transformed(const data::CIFAR10& set, int64_t limit, data::Transform transform) {
  const int64_t n = limit > 0 ? std::min(limit, set.size()) : set.size();
  auto images = std::make_shared<data::TensorDataset>(set.images().narrow(0, 0, n), set.labels().narrow(0, 0, n));
  return std::make_shared<data::TransformDataset>(images, std::move(transform));
}

}  // namespace

TrainingData load_cifar10(const std::string& dir, int64_t train_limit, int64_t test_limit) {
  check_files(dir);
  data::CIFAR10 train(dir, /*train=*/true);
  data::CIFAR10 test(dir, /*train=*/false);
  TrainingData out;
  out.train = transformed(train, train_limit,
                          data::Compose({data::ToTensor(), data::RandomCrop(kSide, kCropPadding),
                                         data::RandomHorizontalFlip(), normalize()}));
  out.test = transformed(test, test_limit, data::Compose({data::ToTensor(), normalize()}));
  out.image = models::ImageShape{3, kSide, kSide};
  out.num_classes = data::CIFAR10::kNumClasses;
  return out;
}

}  // namespace brisk::train
