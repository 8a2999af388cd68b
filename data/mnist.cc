#include "data/mnist.h"

#include <utility>

#include "data/file_bytes.h"
#include "data/idx.h"
#include "data/transform_dataset.h"
#include "data/transforms/to_tensor.h"
#include "tensor/error.h"

namespace brisk::data {
namespace {

// `root`/`file`, or `root`/`file`.gz when only that exists.
std::string find_file(const std::string& root, const std::string& file) {
  std::string plain = root + "/" + file;
  if (file_exists(plain)) return plain;
  std::string gz = plain + ".gz";
  BRISK_CHECK(file_exists(gz), "MNIST: missing file: neither {} nor {} exists", plain, gz);
  return gz;
}

}  // namespace

MNIST::MNIST(const std::string& root, bool train) {
  std::string images = find_file(root, train ? "train-images-idx3-ubyte" : "t10k-images-idx3-ubyte");
  std::string labels = find_file(root, train ? "train-labels-idx1-ubyte" : "t10k-labels-idx1-ubyte");
  init(read_idx(images), read_idx(labels), images, labels);
}

MNIST::MNIST(Tensor images, Tensor labels, const std::string& images_name, const std::string& labels_name) {
  init(std::move(images), std::move(labels), images_name, labels_name);
}

void MNIST::init(Tensor images, Tensor labels, const std::string& images_name, const std::string& labels_name) {
  BRISK_CHECK(images.defined() && images.dim() == 3 && images.dtype() == kUInt8 && images.is_cpu(),
              "MNIST: images file {} holds a {} array, expected uint8 cpu with 3 dims [N, H, W]", images_name,
              images.defined() ? images.describe() : "undefined");
  BRISK_CHECK(labels.defined() && labels.dim() == 1 && labels.dtype() == kUInt8 && labels.is_cpu(),
              "MNIST: labels file {} holds a {} array, expected uint8 cpu with 1 dim [N]", labels_name,
              labels.defined() ? labels.describe() : "undefined");
  BRISK_CHECK(labels.size(0) == images.size(0), "MNIST: labels file {} has {} labels but images file {} has {} images",
              labels_name, labels.size(0), images_name, images.size(0));
  labels = labels.contiguous();
  const uint8_t* raw = labels.data_ptr<uint8_t>();
  for (int64_t i = 0; i < labels.size(0); ++i) {
    // A labels file has an 8-byte header: the labels start at byte offset 8.
    BRISK_CHECK(raw[i] < kNumClasses,
                "MNIST: labels file {}: label {} of example {} (byte offset {} of the IDX data) is out of range "
                "[0, {}]",
                labels_name, raw[i], i, 8 + i, kNumClasses - 1);
  }
  images_ = images.contiguous();
  labels_ = labels.to(kInt64);
}

int64_t MNIST::size() const { return images_.size(0); }

Example<> MNIST::get(int64_t index) const {
  check_index("MNIST", index, size());
  return {images_.select(0, index), labels_.select(0, index)};
}

namespace datasets {

MNIST::MNIST(const std::string& root, Mode mode)
    : MNIST(std::make_shared<const data::MNIST>(root, mode == Mode::kTrain), mode == Mode::kTrain) {}

MNIST::MNIST(std::shared_ptr<const data::MNIST> source, bool train)
    : MapDataset(std::make_shared<TransformDataset>(source, ToTensor())), source_(std::move(source)), train_(train) {}

Tensor MNIST::images() const { return source_->images().to(kFloat32).div(255).unsqueeze(1); }

}  // namespace datasets
}  // namespace brisk::data
