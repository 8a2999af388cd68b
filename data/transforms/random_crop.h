#pragma once
// A crop of an image [..., H, W] at a random place, after padding its borders with zeros
// (torchvision.transforms.RandomCrop(size, padding) with fill 0), the usual augmentation of
// CIFAR-10 training (32x32 crops of images padded by 4).
#include <cstdint>

#include "data/transforms/transform.h"
#include "tensor/generator.h"

namespace brisk::data {

// A crop size: RandomCrop(32, 4) crops 32x32, RandomCrop({24, 32}, 4) crops 24 rows by 32 columns.
struct CropSize {
  CropSize(int64_t side) : height(side), width(side) {}
  CropSize(int64_t height_, int64_t width_) : height(height_), width(width_) {}
  int64_t height;
  int64_t width;
};

class RandomCrop {
 public:
  // `padding` zeros on every side; `generator` null draws from data::sample_generator() (see
  // data/transforms/transform.h). The generator must outlive the transform.
  explicit RandomCrop(CropSize size, int64_t padding = 0, Generator* generator = nullptr);

  // Raises brisk::Error when the padded image is smaller than the crop.
  Tensor operator()(const Tensor& image) const;

 private:
  int64_t height_;
  int64_t width_;
  int64_t padding_;
  Generator* generator_;
};

}  // namespace brisk::data
