#include "data/transforms/random_horizontal_flip.h"

#include "data/random.h"
#include "tensor/native/ops.h"

namespace brisk::data {

RandomHorizontalFlip::RandomHorizontalFlip(double p, Generator* generator) : p_(p), generator_(generator) {
  BRISK_CHECK(p >= 0 && p <= 1, "RandomHorizontalFlip: p must be a probability in [0, 1], got {}", p);
}

Tensor RandomHorizontalFlip::operator()(const Tensor& image) const {
  BRISK_CHECK(image.defined() && image.dim() >= 2, "RandomHorizontalFlip: expected an image [..., H, W], got {}",
              image.defined() ? image.describe() : "an undefined tensor");
  Generator& gen = generator_ != nullptr ? *generator_ : sample_generator();
  if (!(uniform(gen) < p_)) return image;
  int64_t width = image.size(-1);
  Tensor reversed = native::arange(width - 1, -1, -1, TensorOptions(kInt64).device(image.device()));
  return image.index_select(-1, reversed);
}

}  // namespace brisk::data
