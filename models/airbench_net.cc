#include "models/airbench_net.h"

#include "nn/functional.h"

namespace brisk::models {

namespace F = nn::functional;

AirbenchNetImpl::AirbenchNetImpl(const AirbenchNetOptions& options_) : options(options_) {
  const auto& w = options.widths();
  BRISK_CHECK(w[0] > 0 && w[1] > 0 && w[2] > 0 && options.num_classes() > 0,
              "AirbenchNet: widths and num_classes must be positive, got widths [{}, {}, {}], num_classes {}", w[0],
              w[1], w[2], options.num_classes());
  stem = register_module("stem", nn::Conv2d(3, kStemChannels, 2));
  group1 = register_module("group1", AirbenchConvGroup(kStemChannels, w[0]));
  group2 = register_module("group2", AirbenchConvGroup(w[0], w[1]));
  group3 = register_module("group3", AirbenchConvGroup(w[1], w[2]));
  linear = register_module("linear", nn::Linear(nn::LinearOptions(w[2], options.num_classes()).bias(false)));
}

Tensor AirbenchNetImpl::forward(const Tensor& images) {
  Tensor x = F::gelu(stem(images));
  x = group3(group2(group1(x)));
  x = F::flatten(F::max_pool2d(x, 3), 1);
  return linear(x).mul(kLogitScale);
}

}  // namespace brisk::models
