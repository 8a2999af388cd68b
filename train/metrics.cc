#include "train/metrics.h"

#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "nn/functional.h"

namespace brisk::train {

MetricSums::MetricSums(Device device)
    : loss_sum_(zeros({}, TensorOptions(kFloat64).device(device))),
      correct_(zeros({}, TensorOptions(kInt64).device(device))) {}

MetricSums::MetricSums(const Tensor& loss_sum, const Tensor& correct, int64_t count)
    : loss_sum_(loss_sum.detach().to(kFloat64)), correct_(correct.detach().to(kInt64)), count_(count) {
  BRISK_CHECK(loss_sum_.dim() == 0 && correct_.dim() == 0 && loss_sum_.device() == correct_.device(),
              "MetricSums: expected a loss sum and a correct count of one element on one device, got {} and {}",
              loss_sum.describe(), correct.describe());
}

void MetricSums::add(const MetricSums& other) {
  autograd::NoGradGuard no_grad;
  loss_sum_ = loss_sum_ + other.loss_sum_;
  correct_ = correct_ + other.correct_;
  count_ += other.count_;
}

MetricSums MetricSums::clone() const { return MetricSums(loss_sum_.clone(), correct_.clone(), count_); }

Tensor MetricSums::packed() const {
  autograd::NoGradGuard no_grad;
  // float64 holds the counts exactly (up to 2^53) next to the loss sum, in one tensor.
  Tensor count = full({1}, count_, TensorOptions(kFloat64).device(device()));
  return cat({loss_sum_.view({1}), correct_.to(kFloat64).view({1}), count});
}

Metrics MetricSums::read() const { return read_metrics(packed()); }

Metrics read_metrics(const Tensor& packed) {
  BRISK_CHECK(packed.dtype() == kFloat64 && packed.sizes() == Shape{3},
              "read_metrics: expected a float64 [3] (loss sum, correct, count), got {}", packed.describe());
  nn::functional::check_deferred_targets();
  std::vector<double> values = packed.to_vector<double>();
  return {values[0], static_cast<int64_t>(values[1]), static_cast<int64_t>(values[2])};
}

}  // namespace brisk::train
