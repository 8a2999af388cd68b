// batch_norm and layer_norm, composed from differentiable ops. batch_norm folds the
// statistics and the affine parameters into one per-channel scale and shift first, so the
// full-size input is only read once more after the statistics.
#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "nn/functional.h"

namespace brisk::nn::functional {

namespace {

void check_channel_vector(const char* what, const Tensor& t, const Tensor& input) {
  BRISK_CHECK(!t.defined() || (t.dim() == 1 && t.size(0) == input.size(1)),
              "batch_norm: {} {} should have shape [{}] (the channels of input {})", what, t.describe(), input.size(1),
              input.sizes());
}

}  // namespace

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps) {
  BRISK_CHECK(input.dim() >= 2, "batch_norm: expected an input [N, C, *] with at least 2 dims, got {}",
              input.describe());
  BRISK_CHECK(running_mean.defined() == running_var.defined(),
              "batch_norm: running_mean {} and running_var {} must be given together", running_mean.describe(),
              running_var.describe());
  check_channel_vector("running_mean", running_mean, input);
  check_channel_vector("running_var", running_var, input);
  check_channel_vector("weight", weight, input);
  check_channel_vector("bias", bias, input);
  const int64_t channels = input.size(1);
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);

  Tensor mean, invstd;
  if (training || !running_mean.defined()) {
    const int64_t count = input.numel() / std::max<int64_t>(channels, 1);
    BRISK_CHECK(count > 1, "batch_norm: expected more than 1 value per channel when training, got input {}",
                input.sizes());
    mean = input.mean(dims);
    Tensor var = input.var(dims, /*correction=*/0);
    invstd = rsqrt(var + eps);
    if (training && running_mean.defined()) {
      NoGradGuard no_grad;
      Tensor rm = running_mean, rv = running_var;
      rm.mul_(1.0 - momentum).add_(mean.detach(), momentum);
      rv.mul_(1.0 - momentum).add_(var.detach(), momentum * static_cast<double>(count) / (count - 1));
    }
  } else {
    mean = running_mean;
    invstd = rsqrt(running_var + eps);
  }
  Tensor scale = weight.defined() ? invstd * weight : invstd;
  Tensor shift = bias.defined() ? bias - mean * scale : -(mean * scale);
  Shape channel_shape(input.dim(), 1);
  channel_shape[1] = channels;
  return input * scale.view(channel_shape) + shift.view(channel_shape);
}

Tensor layer_norm(const Tensor& input, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  bool matches = k >= 1 && input.dim() >= k;
  for (int64_t i = 0; matches && i < k; ++i) matches = input.size(input.dim() - k + i) == normalized_shape[i];
  BRISK_CHECK(matches, "layer_norm: normalized_shape {} does not match the trailing dims of input {}", normalized_shape,
              input.sizes());
  BRISK_CHECK(!weight.defined() || weight.sizes() == normalized_shape,
              "layer_norm: weight {} should have the normalized shape {}", weight.describe(), normalized_shape);
  BRISK_CHECK(!bias.defined() || bias.sizes() == normalized_shape,
              "layer_norm: bias {} should have the normalized shape {}", bias.describe(), normalized_shape);
  std::vector<int64_t> dims;
  for (int64_t d = input.dim() - k; d < input.dim(); ++d) dims.push_back(d);
  Tensor mean = input.mean(dims, true);
  Tensor var = input.var(dims, /*correction=*/0, true);
  Tensor y = (input - mean) * rsqrt(var + eps);
  if (weight.defined()) y = y * weight;
  if (bias.defined()) y = y + bias;
  return y;
}

}  // namespace brisk::nn::functional
