#pragma once
// models::MLP: a multi-layer perceptron over flattened images, ReLU between layers:
//
//   models::MLP model(models::MLPOptions(784, 10).hidden({256, 128}));
//   Tensor logits = model->forward(images);  // images [N, 1, 28, 28] or [N, 784] -> [N, 10]
#include <cstdint>
#include <vector>

#include "nn/module.h"
#include "nn/module_holder.h"
#include "nn/module_list.h"
#include "tensor/arg.h"

namespace brisk::models {

struct MLPOptions {
  MLPOptions(int64_t in_features, int64_t num_classes) : in_features_(in_features), num_classes_(num_classes) {}
  BRISK_ARG(int64_t, in_features);
  BRISK_ARG(int64_t, num_classes);
  BRISK_ARG(std::vector<int64_t>, hidden) = {256, 128};
};

class MLPImpl : public nn::Module {
 public:
  explicit MLPImpl(const MLPOptions& options = MLPOptions(28 * 28, 10));

  // Flattens every dim after the first, then Linear -> ReLU -> ... -> Linear.
  Tensor forward(const Tensor& input) override;

  MLPOptions options;
  nn::ModuleList layers;  // the nn::Linear layers, input to output
};

BRISK_MODULE(MLP);

}  // namespace brisk::models
