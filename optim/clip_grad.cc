#include "optim/clip_grad.h"

#include <cmath>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"

namespace brisk::optim {
namespace {

std::vector<Tensor> defined_grads(const std::vector<Tensor>& params) {
  std::vector<Tensor> grads;
  for (const Tensor& p : params) {
    if (p.defined() && p.grad().defined()) grads.push_back(p.grad());
  }
  return grads;
}

}  // namespace

Tensor clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type, bool error_if_nonfinite) {
  BRISK_CHECK(norm_type > 0.0 || std::isinf(norm_type),
              "clip_grad_norm_: norm_type must be positive or inf, got {} (max_norm {})", norm_type, max_norm);
  NoGradGuard no_grad;
  std::vector<Tensor> grads = defined_grads(params);
  if (grads.empty()) return zeros(Shape{});
  Device device = grads[0].device();
  std::vector<Tensor> norms;
  norms.reserve(grads.size());
  for (const Tensor& g : grads) norms.push_back(g.norm(norm_type).to(device));
  Tensor total_norm = stack(norms).norm(norm_type);
  if (error_if_nonfinite) {
    double total = total_norm.item<double>();
    BRISK_CHECK(std::isfinite(total),
                "clip_grad_norm_: the total norm of order {} of the gradients of {} parameters is {}, so they "
                "cannot be clipped; pass error_if_nonfinite = false to clip anyway",
                norm_type, grads.size(), total);
  }
  Tensor clip_coef = (max_norm / (total_norm + 1e-6)).clamp(std::nullopt, 1.0);
  for (Tensor& g : grads) g.mul_(clip_coef.to(g.device()));
  return total_norm;
}

void clip_grad_value_(const std::vector<Tensor>& params, double clip_value) {
  NoGradGuard no_grad;
  for (Tensor& g : defined_grads(params)) g.clamp_(-clip_value, clip_value);
}

}  // namespace brisk::optim

namespace brisk::nn::utils {

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return optim::clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite).item<double>();
}

}  // namespace brisk::nn::utils
