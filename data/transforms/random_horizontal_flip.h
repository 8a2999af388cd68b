#pragma once
// Mirrors an image [..., H, W] left to right with probability p
// (torchvision.transforms.RandomHorizontalFlip).
#include "data/transforms/transform.h"
#include "tensor/generator.h"

namespace brisk::data {

class RandomHorizontalFlip {
 public:
  // `generator` null draws from data::sample_generator() (see data/transforms/transform.h).
  // The generator must outlive the transform.
  explicit RandomHorizontalFlip(double p = 0.5, Generator* generator = nullptr);
  // Draws once per call, whatever p; returns `image` itself when it does not flip.
  Tensor operator()(const Tensor& image) const;

 private:
  double p_;
  Generator* generator_;
};

}  // namespace brisk::data
