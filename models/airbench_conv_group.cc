#include "models/airbench_conv_group.h"

#include <algorithm>

#include "autograd/grad_mode.h"
#include "nn/functional.h"

namespace brisk::models {

namespace F = nn::functional;

namespace {

// torch.nn.init.dirac_ on weight[:min(out, in)]: filter i passes input channel i through.
nn::Conv2d conv3x3_dirac(int64_t in_channels, int64_t out_channels) {
  nn::Conv2d conv(nn::Conv2dOptions(in_channels, out_channels, 3).padding(1).bias(false));
  NoGradGuard no_grad;
  const int64_t identities = std::min(in_channels, out_channels);
  conv->weight.narrow(0, 0, identities).zero_();
  for (int64_t i = 0; i < identities; ++i) conv->weight[i][i][1][1].fill_(1.0);
  return conv;
}

// Each group's batch norms are followed by a GELU, fused into their kernels.
nn::BatchNorm2d airbench_batch_norm(int64_t channels) {
  return nn::BatchNorm2d(nn::BatchNormOptions(channels).eps(1e-12).momentum(0.4).activation(FusedActivation::Gelu));
}

}  // namespace

AirbenchConvGroupImpl::AirbenchConvGroupImpl(int64_t in_channels, int64_t out_channels) {
  BRISK_CHECK(in_channels > 0 && out_channels > 0,
              "AirbenchConvGroup: channels must be positive, got in_channels {}, out_channels {}", in_channels,
              out_channels);
  conv1 = register_module("conv1", conv3x3_dirac(in_channels, out_channels));
  norm1 = register_module("norm1", airbench_batch_norm(out_channels));
  conv2 = register_module("conv2", conv3x3_dirac(out_channels, out_channels));
  norm2 = register_module("norm2", airbench_batch_norm(out_channels));
}

Tensor AirbenchConvGroupImpl::forward(const Tensor& x) {
  Tensor y = norm1(F::max_pool2d(conv1(x), 2));
  return norm2(conv2(y));
}

}  // namespace brisk::models
