#pragma once
// models::LeNet5: the classic convolutional network for 28x28 single-channel images
// (MNIST, Fashion-MNIST), in its common modern form (ReLU and max pooling):
//
//   conv 1->6 5x5 pad 2, ReLU, max-pool 2   [N, 6, 14, 14]
//   conv 6->16 5x5,      ReLU, max-pool 2   [N, 16, 5, 5]
//   flatten, linear 400->120, ReLU, linear 120->84, ReLU, linear 84->num_classes
//
//   models::LeNet5 model;                  // 10 classes
//   Tensor logits = model->forward(images);  // images [N, 1, 28, 28] -> [N, 10]
#include <cstdint>

#include "nn/module.h"
#include "nn/module_holder.h"
#include "nn/modules/conv.h"
#include "nn/modules/linear.h"

namespace brisk::models {

class LeNet5Impl : public nn::Module {
 public:
  explicit LeNet5Impl(int64_t num_classes = 10);

  Tensor forward(const Tensor& images) override;

  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
};

BRISK_MODULE(LeNet5);

}  // namespace brisk::models
