#include "models/lenet.h"

#include "nn/functional.h"

namespace brisk::models {

namespace F = nn::functional;

LeNet5Impl::LeNet5Impl(int64_t num_classes) {
  conv1 = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(1, 6, 5).padding(2)));
  conv2 = register_module("conv2", nn::Conv2d(6, 16, 5));
  fc1 = register_module("fc1", nn::Linear(16 * 5 * 5, 120));
  fc2 = register_module("fc2", nn::Linear(120, 84));
  fc3 = register_module("fc3", nn::Linear(84, num_classes));
}

Tensor LeNet5Impl::forward(const Tensor& images) {
  Tensor x = F::max_pool2d(F::relu(conv1(images)), 2);
  x = F::max_pool2d(F::relu(conv2(x)), 2);
  x = F::flatten(x, 1);
  x = F::relu(fc1(x));
  x = F::relu(fc2(x));
  return fc3(x);
}

}  // namespace brisk::models
