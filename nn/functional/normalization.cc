// batch_norm, layer_norm and group_norm. batch_norm runs as one op with its own backward (PyTorch's
// native_batch_norm and batch_norm_backward) on devices with the kernels (the CPU and the
// simulated device), and is composed from differentiable ops elsewhere. The composite folds
// the statistics and the affine parameters into one per-channel scale and shift first, so
// the full-size input is only read once more after the statistics. sync_batch_norm is that
// composite with statistics combined over processes, so autograd derives its backward,
// exchange included. A fused activation (FusedActivation) runs in the same kernel as the
// normalization where the kernels exist, and after the composite as its own op elsewhere.
#include <array>
#include <functional>

#include "autograd/autocast.h"
#include "autograd/backward_ops.h"
#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "autograd/record.h"
#include "nn/functional.h"
#include "tensor/native/ops.h"

namespace brisk::nn::functional {

using autograd::BackwardArgs;
using autograd::record;
using autograd::TensorList;

namespace {

void check_channel_vector(const char* op, const char* what, const Tensor& t, const Tensor& input) {
  BRISK_CHECK(!t.defined() || (t.dim() == 1 && t.size(0) == input.size(1)),
              "{}: {} {} should have shape [{}] (the channels of input {})", op, what, t.describe(), input.size(1),
              input.sizes());
}

// The arguments' checks shared by batch_norm and sync_batch_norm (`op`).
void check_batch_norm_args(const char* op, const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                           const Tensor& weight, const Tensor& bias) {
  BRISK_CHECK(input.dim() >= 2, "{}: expected an input [N, C, *] with at least 2 dims, got {}", op, input.describe());
  BRISK_CHECK(running_mean.defined() == running_var.defined(),
              "{}: running_mean {} and running_var {} must be given together", op, running_mean.describe(),
              running_var.describe());
  check_channel_vector(op, "running_mean", running_mean, input);
  check_channel_vector(op, "running_var", running_var, input);
  check_channel_vector(op, "weight", weight, input);
  check_channel_vector(op, "bias", bias, input);
}

// [1, C, 1, ...] for broadcasting a per-channel vector against input.
Shape channel_shape(const Tensor& input) {
  Shape shape(input.dim(), 1);
  shape[1] = input.size(1);
  return shape;
}

// Every dim but the channels'.
std::vector<int64_t> reduced_dims(const Tensor& input) {
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);
  return dims;
}

// Values per channel of input [N, C, *].
int64_t channel_count(const Tensor& input) { return input.numel() / std::max<int64_t>(input.size(1), 1); }

// running = (1 - momentum) * running + momentum * batch statistic.
void update_running_stats(const Tensor& running_mean, const Tensor& running_var, const Tensor& mean,
                          const Tensor& unbiased_var, double momentum) {
  NoGradGuard no_grad;
  Tensor rm = running_mean, rv = running_var;
  rm.mul_(1.0 - momentum).add_(mean.detach(), momentum);
  rv.mul_(1.0 - momentum).add_(unbiased_var.detach(), momentum);
}

// (input - mean) * invstd * weight + bias, with the statistics and the affine parameters
// folded into one per-channel scale and shift first.
Tensor normalize(const Tensor& input, const Tensor& mean, const Tensor& invstd, const Tensor& weight,
                 const Tensor& bias) {
  Tensor scale = weight.defined() ? invstd * weight : invstd;
  Tensor shift = bias.defined() ? bias - mean * scale : -(mean * scale);
  return input * scale.view(channel_shape(input)) + shift.view(channel_shape(input));
}

Tensor composite_batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                            const Tensor& weight, const Tensor& bias, bool use_batch_stats, double momentum,
                            double eps) {
  if (!use_batch_stats) return normalize(input, running_mean, rsqrt(running_var + eps), weight, bias);
  std::vector<int64_t> dims = reduced_dims(input);
  const double count = static_cast<double>(channel_count(input));
  Tensor mean = input.mean(dims);
  Tensor var = input.var(dims, /*correction=*/0);
  if (running_mean.defined())
    update_running_stats(running_mean, running_var, mean, var * (count / (count - 1)), momentum);
  return normalize(input, mean, rsqrt(var + eps), weight, bias);
}

// [3, C]: the number of values, their mean and their biased variance per channel of input
// [N, C, *]. An empty input has zero statistics, still computed from it so that the
// exchange's backward runs on this process as on the others.
Tensor local_batch_stats(const Tensor& input) {
  std::vector<int64_t> dims = reduced_dims(input);
  const int64_t count = channel_count(input);
  Tensor mean = count > 0 ? input.mean(dims) : input.sum(dims);
  Tensor var = count > 0 ? input.var(dims, /*correction=*/0) : input.sum(dims);
  return stack({full_like(mean, static_cast<double>(count)), mean, var});
}

// The gradients of batch_norm written with differentiable ops, for create_graph (double
// backward). With batch statistics they are recomputed from the input so that their own
// dependence on it is differentiated too; otherwise mean and invstd are the saved constants.
TensorList differentiable_batch_norm_backward(const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                              const Tensor& save_mean, const Tensor& save_invstd, bool use_batch_stats,
                                              double eps, std::array<bool, 3> need) {
  std::vector<int64_t> dims = reduced_dims(input);
  const Shape shape = channel_shape(input);
  Tensor mean = save_mean.view(shape), invstd = save_invstd.view(shape);
  if (use_batch_stats) {
    mean = input.mean(dims, true);
    invstd = rsqrt(input.var(dims, /*correction=*/0, true) + eps);
  }
  Tensor normalized = (input - mean) * invstd;
  TensorList grads(3);
  if (need[0]) {
    Tensor grad_normalized = weight.defined() ? grad_out * weight.view(shape) : grad_out;
    grads[0] = use_batch_stats ? (grad_normalized - grad_normalized.mean(dims, true) -
                                  normalized * (grad_normalized * normalized).mean(dims, true)) *
                                     invstd
                               : grad_normalized * invstd;
  }
  if (need[1]) grads[1] = (grad_out * normalized).sum(dims);
  if (need[2]) grads[2] = grad_out.sum(dims);
  return grads;
}

// Counts one batch in num_batches_tracked (when given) where the kernels cannot: in the
// composite paths, as PyTorch's module does with add_(1).
void count_batch(const Tensor& num_batches_tracked) {
  if (!num_batches_tracked.defined()) return;
  NoGradGuard no_grad;
  Tensor counter = num_batches_tracked;
  counter.add_(1);
}

// batch_norm of an empty batch, as PyTorch's: there are no batch statistics, so the running
// ones stay as they are, and the (empty) output is a new tensor that keeps the graph to
// input, weight and bias (whose gradients are then zeros). A rank of a data-parallel job can
// hold no rows; with world size 1 (SyncBatchNorm is then BatchNorm) that is the whole batch.
Tensor empty_batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  Tensor out = input.clone();
  if (weight.defined()) out = out * weight.view(channel_shape(input));
  if (bias.defined()) out = out + bias.view(channel_shape(input));
  return out;
}

// A bfloat16/float16 input with float32 statistics or affine parameters, as autocast makes of
// a convolution's output: normalized in float32 and rounded back to the input's dtype, as
// PyTorch's mixed-dtype batch_norm.
bool mixed_precision(const Tensor& input, std::initializer_list<Tensor> params) {
  if (!is_reduced_float(input.dtype())) return false;
  for (const Tensor& t : params) {
    if (t.defined() && t.dtype() == kFloat32) return true;
  }
  return false;
}

// activation(x) as its own differentiable op.
Tensor activate(const Tensor& x, FusedActivation activation) {
  switch (activation) {
    case FusedActivation::Relu: return relu(x);
    case FusedActivation::Gelu: return gelu(x);
    default: return x;
  }
}

// The gradient of the activation's input from the gradient of its output, differentiably (for
// create_graph): Relu's from the saved output, Gelu's at z recomputed from the input.
Tensor differentiable_activation_backward(FusedActivation activation, const Tensor& grad_out, const Tensor& out,
                                          const std::function<Tensor()>& z) {
  switch (activation) {
    case FusedActivation::Relu: return autograd::activation_backward(BinaryOp::ReluBackward, grad_out, out);
    case FusedActivation::Gelu: return autograd::activation_backward(BinaryOp::GeluBackward, grad_out, z());
    default: return grad_out;
  }
}

}  // namespace

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps, FusedActivation activation,
                  const Tensor& num_batches_tracked) {
  check_batch_norm_args("batch_norm", input, running_mean, running_var, weight, bias);
  const bool use_batch_stats = training || !running_mean.defined();
  const Tensor counter = training ? num_batches_tracked : Tensor();
  if (input.numel() == 0) {
    count_batch(counter);
    return activate(empty_batch_norm(input, weight, bias), activation);
  }
  BRISK_CHECK(!use_batch_stats || channel_count(input) > 1,
              "batch_norm: expected more than 1 value per channel when training, got input {}", input.sizes());
  if (!native::has_batch_norm_kernel(input, {weight, bias, running_mean, running_var})) {
    if (mixed_precision(input, {weight, bias, running_mean, running_var})) {
      Tensor normalized = batch_norm(input.to(kFloat32), running_mean, running_var, weight, bias, training, momentum,
                                     eps, FusedActivation::None, counter);
      return activate(normalized.to(input.dtype()), activation);
    }
    count_batch(counter);
    return activate(
        composite_batch_norm(input, running_mean, running_var, weight, bias, use_batch_stats, momentum, eps),
        activation);
  }
  std::array<Tensor, 3> result = native::batch_norm(input, weight, bias, running_mean, running_var, use_batch_stats,
                                                    momentum, eps, activation, counter);
  const Tensor &out = result[0], &save_mean = result[1], &save_invstd = result[2];
  // The output is saved only for Relu's mask, the bias only for Gelu's recomputed input.
  const Tensor saved_out = activation == FusedActivation::Relu ? out : Tensor();
  const Tensor saved_bias = activation == FusedActivation::Gelu ? bias : Tensor();
  return record(
      activation == FusedActivation::None ? "NativeBatchNormBackward" : "NativeBatchNormActivationBackward", out,
      {input, weight, bias}, {input, weight, save_mean, save_invstd, saved_bias, saved_out},
      [use_batch_stats, eps, activation](const BackwardArgs& a) -> TensorList {
        const Tensor &input = a.saved[0], &weight = a.saved[1], &mean = a.saved[2], &invstd = a.saved[3];
        const Tensor &bias = a.saved[4], &out = a.saved[5];
        const std::array<bool, 3> need{a.needs_grad[0], a.needs_grad[1], a.needs_grad[2]};
        if (autograd::GradMode::is_enabled()) {
          Tensor grad_z = differentiable_activation_backward(activation, a.grad(), out, [&] {
            Tensor z = use_batch_stats ? composite_batch_norm(input, Tensor(), Tensor(), weight, bias, true, 0.0, eps)
                                       : normalize(input, mean, invstd, weight, bias);
            return z.to(input.dtype());
          });
          return differentiable_batch_norm_backward(grad_z, input, weight, mean, invstd, use_batch_stats, eps, need);
        }
        std::array<Tensor, 3> grads = native::batch_norm_backward(a.grad(), input, weight, bias, out, mean, invstd,
                                                                  use_batch_stats, activation, need);
        return {grads[0], grads[1], grads[2]};
      });
}

Tensor sync_batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                       const Tensor& bias, double momentum, double eps, const BatchStatsExchange& exchange,
                       FusedActivation activation, const Tensor& num_batches_tracked) {
  check_batch_norm_args("sync_batch_norm", input, running_mean, running_var, weight, bias);
  count_batch(num_batches_tracked);
  // Every process's count, mean and variance [P, 3, C], combined as Chan et al.'s parallel
  // variance (no E[x^2] - E[x]^2 cancellation); the counts carry no gradient.
  Tensor every = exchange.all_gather(local_batch_stats(input));
  Tensor counts = every.select(1, 0), means = every.select(1, 1), vars = every.select(1, 2);
  Tensor count = counts.sum({0});
  Tensor mean = (counts * means).sum({0}) / count;
  Tensor var = (counts * (vars + (means - mean) * (means - mean))).sum({0}) / count;
  if (running_mean.defined())
    update_running_stats(running_mean, running_var, mean, var * (count / (count - 1)), momentum);
  return activate(normalize(input, mean, rsqrt(var + eps), weight, bias), activation);
}

Tensor layer_norm(const Tensor& input_in, const Shape& normalized_shape, const Tensor& weight_in, const Tensor& bias_in,
                  double eps) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::layer_norm, input_in, weight_in, bias_in);
  const Tensor &input = autocast_inputs[0], &weight = autocast_inputs[1], &bias = autocast_inputs[2];
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

// Composed from differentiable ops, as layer_norm: the statistics of each (sample, group) over
// its channels and positions, the per-channel affine after.
Tensor group_norm(const Tensor& input_in, int64_t num_groups, const Tensor& weight_in, const Tensor& bias_in,
                  double eps) {
  autograd::AutocastInputs autocast_inputs(autograd::AutocastOp::group_norm, input_in, weight_in, bias_in);
  const Tensor &input = autocast_inputs[0], &weight = autocast_inputs[1], &bias = autocast_inputs[2];
  BRISK_CHECK(input.dim() >= 2, "group_norm: expected an input [N, C, *] with at least 2 dims, got {}",
              input.describe());
  const int64_t channels = input.size(1);
  BRISK_CHECK(num_groups > 0 && channels % num_groups == 0,
              "group_norm: num_groups {} must be positive and divide the {} channels of input {}", num_groups, channels,
              input.sizes());
  check_channel_vector("group_norm", "weight", weight, input);
  check_channel_vector("group_norm", "bias", bias, input);
  // [N, G, C / G * positions]: one row of statistics per sample and group.
  Tensor grouped = input.reshape({input.size(0), num_groups, -1});
  Tensor mean = grouped.mean({2}, true);
  Tensor var = grouped.var({2}, /*correction=*/0, true);
  Tensor y = ((grouped - mean) * rsqrt(var + eps)).reshape(input.sizes());
  if (weight.defined()) y = y * weight.view(channel_shape(input));
  if (bias.defined()) y = y + bias.view(channel_shape(input));
  return y;
}

}  // namespace brisk::nn::functional
