#pragma once
// Dynamic loss scaling for float16 training, as torch.amp.GradScaler (docs/amp.md): the loss
// is scaled by S before backward and the gradients unscaled before the optimizer step; a step
// whose gradients hold an inf or NaN is skipped and S shrinks; after growth_interval steps in
// a row without one, S grows.
//
//   optim::GradScaler scaler;  // init_scale 2^16, growth 2, backoff 0.5, interval 2000
//   for (...) {
//     opt.zero_grad();
//     Tensor loss;
//     {
//       brisk::autocast guard(kCUDA, kFloat16);
//       loss = loss_fn(model->forward(x), y);
//     }
//     scaler.scale(loss).backward();
//     scaler.unscale_(opt);                          // optional: before clipping
//     optim::clip_grad_norm_(model->parameters(), 1.0);
//     scaler.step(opt);                              // skipped when a gradient is inf/NaN
//     scaler.update();
//   }
//
// The optimizer argument may be any object with params() and step()
// (dist::ZeroRedundancyOptimizer). One whose gradients are sharded over ranks
// (dist::Zero2Optimizer) also has Tensor all_reduce_found_inf(const std::vector<Tensor>&):
// unscale_ hands it this rank's found-inf flags and keeps the flag it returns, the same on
// every rank, so that every rank skips the same steps (torch's ShardedGradScaler).
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "optim/optimizer.h"
#include "tensor/arg.h"
#include "tensor/tensor.h"

namespace brisk::optim {

struct GradScalerOptions {
  BRISK_ARG(double, init_scale) = 65536.0;
  BRISK_ARG(double, growth_factor) = 2.0;
  BRISK_ARG(double, backoff_factor) = 0.5;
  BRISK_ARG(int64_t, growth_interval) = 2000;
  // Disabled, every method is a pass-through (scale returns its input, step just steps), so
  // one training loop serves float32, bfloat16 and float16.
  BRISK_ARG(bool, enabled) = true;
};

class GradScaler {
 public:
  // Throws when growth_factor <= 1, backoff_factor is not in (0, 1), growth_interval <= 0 or
  // init_scale <= 0.
  explicit GradScaler(GradScalerOptions options = {});

  // outputs * scale (the loss before backward).
  Tensor scale(const Tensor& outputs) const;

  // Divides the optimizer's gradients by the scale in place and records whether any is inf
  // or NaN. At most once per optimizer between update()s (throws otherwise); step() calls it
  // when it has not been.
  template <typename Opt>
  void unscale_(Opt& optimizer) {
    unscale_params(&optimizer, params_of(optimizer), found_inf_reduction(optimizer, 0));
  }
  // optimizer.step() unless unscale_ found an inf or NaN; returns whether it stepped.
  // Once per optimizer between update()s.
  template <typename Opt>
  bool step(Opt& optimizer) {
    return step_params(&optimizer, params_of(optimizer), found_inf_reduction(optimizer, 0), [&] { optimizer.step(); });
  }
  // After the step(s) of an iteration: the scale times backoff_factor if any optimizer's
  // gradients held an inf or NaN, else times growth_factor after growth_interval clean
  // iterations in a row. new_scale sets it instead.
  void update(std::optional<double> new_scale = std::nullopt);

  // The current scale (1 when disabled).
  double get_scale() const;
  // Clean iterations since the scale last changed.
  int64_t growth_tracker() const { return growth_tracker_; }
  bool is_enabled() const { return options_.enabled(); }

  // PyTorch's layout: {"scale", "growth_factor", "backoff_factor", "growth_interval",
  // "_growth_tracker"}; empty when disabled.
  nlohmann::json state_dict() const;
  // Throws naming a key that is missing or of the wrong type.
  void load_state_dict(const nlohmann::json& state);

 private:
  enum class Stage { Ready, Unscaled, Stepped };
  struct PerOptimizer {
    Stage stage = Stage::Ready;
    std::map<std::string, Tensor> found_inf;  // per device of the gradients
  };

  static std::vector<Tensor> params_of(const Optimizer& optimizer);
  template <typename Opt, typename = decltype(std::declval<const Opt&>().params())>
  static std::vector<Tensor> params_of(const Opt& optimizer) {
    return optimizer.params();
  }
  // A sharded optimizer's all_reduce_found_inf; empty for the others.
  using FoundInfReduction = std::function<Tensor(const std::vector<Tensor>&)>;
  template <typename Opt>
  static auto found_inf_reduction(const Opt& optimizer, int)
      -> decltype(optimizer.all_reduce_found_inf(std::vector<Tensor>{}), FoundInfReduction()) {
    return [&optimizer](const std::vector<Tensor>& flags) { return optimizer.all_reduce_found_inf(flags); };
  }
  template <typename Opt>
  static FoundInfReduction found_inf_reduction(const Opt&, long) {
    return {};
  }
  void unscale_params(const void* optimizer, const std::vector<Tensor>& params, const FoundInfReduction& reduce);
  bool step_params(const void* optimizer, const std::vector<Tensor>& params, const FoundInfReduction& reduce,
                   const std::function<void()>& step);

  GradScalerOptions options_;
  float scale_;
  int64_t growth_tracker_ = 0;
  std::map<const void*, PerOptimizer> per_optimizer_;
};

}  // namespace brisk::optim
