#include "models/mlp.h"

#include "nn/functional.h"
#include "nn/modules/linear.h"

namespace brisk::models {

namespace F = nn::functional;

MLPImpl::MLPImpl(const MLPOptions& options) : options(options) {
  layers = register_module("layers", nn::ModuleList());
  int64_t in = options.in_features();
  for (int64_t width : options.hidden()) {
    layers->push_back(nn::Linear(in, width));
    in = width;
  }
  layers->push_back(nn::Linear(in, options.num_classes()));
}

Tensor MLPImpl::forward(const Tensor& input) {
  Tensor x = F::flatten(input, 1);
  const size_t n = layers->size();
  for (size_t i = 0; i < n; ++i) {
    // A module call (forward hooks, errors naming the layer), as a holder's fc(x).
    nn::LinearImpl& layer = layers->at<nn::LinearImpl>(i);
    x = nn::forward_naming_module(layer, [&] { return layer.forward(x); });
    if (i + 1 < n) x = F::relu(x);
  }
  return x;
}

}  // namespace brisk::models
