#include "distributed/fsdp/clip_grad_norm.h"

#include <cmath>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "distributed/fsdp/fully_shard.h"
#include "tensor/error.h"
#include "tensor/native/ops.h"

namespace brisk::dist {

Tensor clip_grad_norm_(nn::Module& model, double max_norm, double norm_type, bool error_if_nonfinite) {
  BRISK_CHECK(norm_type > 0.0 || std::isinf(norm_type),
              "clip_grad_norm_: norm_type must be positive or inf, got {} (max_norm {})", norm_type, max_norm);
  std::vector<FSDPModule> units = fsdp_modules(model);
  BRISK_CHECK(!units.empty(), "clip_grad_norm_: this {} has no fully_shard units; use optim::clip_grad_norm_",
              model.name());
  ProcessGroup& group = units[0].unit().group();
  std::vector<Tensor> grads;
  for (const FSDPModule& unit : units) {
    BRISK_CHECK(&unit.unit().group() == &group,
                "clip_grad_norm_: unit {} is sharded over another process group than unit {}", unit.unit().name(),
                units[0].unit().name());
    for (const Tensor& p : unit.unit().params()) {
      if (p.grad().defined() && p.grad().numel() > 0) grads.push_back(p.grad());
    }
  }
  NoGradGuard no_grad;
  const bool inf = std::isinf(norm_type);
  // This rank's share: the sum of |g|^p over its shards (their max |g| for inf).
  Tensor total = native::zeros({1}, TensorOptions(kFloat64).device(group.device()));
  for (const Tensor& g : grads) {
    Tensor part = inf ? g.abs().max() : g.abs().pow(norm_type).sum();
    part = part.to(group.device(), kFloat64).reshape({1});  // shards may live on the CPU (cpu_offload)
    total = inf ? total.maximum(part) : total + part;
  }
  group.all_reduce(total, inf ? ReduceOp::MAX : ReduceOp::SUM)->wait();
  Tensor total_norm = (inf ? total : total.pow(1.0 / norm_type)).reshape({});
  if (error_if_nonfinite) {
    const double value = total_norm.item<double>();
    BRISK_CHECK(std::isfinite(value),
                "clip_grad_norm_: the total norm of order {} of the gradient shards is {} (rank {}), so they cannot "
                "be clipped; pass error_if_nonfinite = false to clip anyway",
                norm_type, value, group.rank());
  }
  Tensor clip_coef = (max_norm / (total_norm + 1e-6)).clamp(std::nullopt, 1.0);
  for (Tensor& g : grads) g.mul_(clip_coef.to(g.device(), g.dtype()));
  return total_norm;
}

}  // namespace brisk::dist
