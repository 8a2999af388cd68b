#pragma once
// The options of the fused optimizer updates (Backend::sgd_step, Backend::adam_step), with
// the per-step scalars already computed on the host in float64 as PyTorch does.
namespace brisk {

struct SgdStepParams {
  double lr = 0.0;
  double momentum = 0.0;  // 0: no momentum buffer
  double dampening = 0.0;
  double weight_decay = 0.0;
  bool nesterov = false;
  bool maximize = false;
  // The buffer is new: it takes the gradient as is, without momentum or dampening.
  bool first_step = false;
};

struct AdamStepParams {
  double lr = 0.0;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;
  bool decoupled_weight_decay = false;  // AdamW
  bool amsgrad = false;
  bool maximize = false;
  double step_size = 0.0;              // lr / (1 - beta1^t)
  double bias_correction2_sqrt = 1.0;  // sqrt(1 - beta2^t)
};

}  // namespace brisk
