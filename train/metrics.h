#pragma once
// A classifier's metrics as sums (loss x examples, correct, count), so that batches and
// processes add up exactly and the means come last: Metrics on the host, MetricSums as they
// are gathered on the device the model runs on.
//
//   MetricSums epoch(device);
//   epoch.add(MetricSums(loss * n, correct, n));   // each step: device ops, no waiting
//   Metrics shown = epoch.read();                  // at a log line: one copy to the host
#include <cstdint>

#include "tensor/tensor.h"

namespace brisk::train {

// The sums on the host.
struct Metrics {
  double loss_sum = 0.0;  // of the per-example cross-entropy losses
  int64_t correct = 0;    // examples whose largest logit is their label
  int64_t count = 0;

  double loss() const { return count > 0 ? loss_sum / count : 0.0; }
  double accuracy() const { return count > 0 ? static_cast<double>(correct) / count : 0.0; }
};

// Metrics summed on the device the model runs on, step after step, without the host waiting
// for it; read() brings them to the host. The example count is the host's own.
class MetricSums {
 public:
  // Zero sums on `device`.
  explicit MetricSums(Device device = kCPU);
  // One batch's: its summed loss (a floating point []) and its correct count (an integer []),
  // both on the device, and its size.
  MetricSums(const Tensor& loss_sum, const Tensor& correct, int64_t count);

  // Adds `other`'s sums (on the same device), queued on the device.
  void add(const MetricSums& other);

  // A copy of the sums, queued on the device, which later writes to these tensors (a graph's
  // replay, train/graphed_step.h) do not change.
  MetricSums clone() const;

  Device device() const { return loss_sum_.device(); }
  int64_t count() const { return count_; }
  // float64 [3] on this device: loss sum, correct count, example count; what an all-reduce
  // adds up over the ranks.
  Tensor packed() const;
  // The sums on the host: read_metrics(packed()).
  Metrics read() const;

 private:
  Tensor loss_sum_;  // float64 []
  Tensor correct_;   // int64 []
  int64_t count_ = 0;
};

// The metrics in `packed` (a float64 [3] as MetricSums::packed() makes, on any device) on the
// host, after checking the targets of the losses computed on devices so far
// (nn::functional::check_deferred_targets): a bad target raises here. One device->host copy
// per device used, a synchronization with it.
Metrics read_metrics(const Tensor& packed);

}  // namespace brisk::train
