#include "data/transforms/random_crop.h"

#include <algorithm>

#include "data/random.h"
#include "tensor/native/ops.h"

namespace brisk::data {

RandomCrop::RandomCrop(CropSize size, int64_t padding, Generator* generator)
    : height_(size.height), width_(size.width), padding_(padding), generator_(generator) {
  BRISK_CHECK(height_ > 0 && width_ > 0, "RandomCrop: the crop size must be positive, got [{}, {}]", height_, width_);
  BRISK_CHECK(padding >= 0, "RandomCrop: padding must be non-negative, got {}", padding);
}

Tensor RandomCrop::operator()(const Tensor& image) const {
  BRISK_CHECK(image.defined() && image.dim() >= 2, "RandomCrop: expected an image [..., H, W], got {}",
              image.defined() ? image.describe() : "an undefined tensor");
  int64_t height = image.size(-2), width = image.size(-1);
  int64_t padded_height = height + 2 * padding_, padded_width = width + 2 * padding_;
  BRISK_CHECK(height_ <= padded_height && width_ <= padded_width,
              "RandomCrop: crop size [{}, {}] is larger than the image {} padded by {} ([{}, {}])", height_, width_,
              image.describe(), padding_, padded_height, padded_width);
  Generator& gen = generator_ != nullptr ? *generator_ : sample_generator();
  int64_t top = uniform_int(gen, padded_height - height_ + 1);
  int64_t left = uniform_int(gen, padded_width - width_ + 1);

  Shape shape = image.sizes();
  shape[shape.size() - 2] = height_;
  shape[shape.size() - 1] = width_;
  Tensor out = native::zeros(shape, image.options());
  // The part of the crop window (padded coordinates) that covers the image rather than padding.
  int64_t row0 = std::max(top, padding_), row1 = std::min(top + height_, padding_ + height);
  int64_t col0 = std::max(left, padding_), col1 = std::min(left + width_, padding_ + width);
  if (row1 > row0 && col1 > col0) {
    out.narrow(-2, row0 - top, row1 - row0)
        .narrow(-1, col0 - left, col1 - col0)
        .copy_(image.narrow(-2, row0 - padding_, row1 - row0).narrow(-1, col0 - padding_, col1 - col0));
  }
  return out;
}

}  // namespace brisk::data
