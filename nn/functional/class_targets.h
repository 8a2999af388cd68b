#pragma once
// The class-index targets of nll_loss and cross_entropy, checked against their input.
//
// A target must be ignore_index or a class in [0, C). On the CPU a bad target raises at the
// call. On an accelerator, reading the targets back would make the host wait for the device
// on every training step, so the check runs on the device: each call folds its count of
// bad targets and its first bad one into a record kept on that device, and
// check_deferred_targets() (nn/functional.h) reads the records, one copy per device, and
// raises for the first bad target since the last check, naming its value, where it was and
// the number of classes. Until then a bad target counts as ignored, so that no kernel
// indexes out of bounds. A program that never calls it is still stopped: the 1000th call
// recorded since the last check runs the check itself.
#include <cstdint>

#include "tensor/tensor.h"

namespace brisk::nn::functional::detail {

struct ClassTargets {
  Tensor input;   // [N, C, *]: the input, a 1-D [C] taken as a batch of one
  Tensor target;  // int64 [N, *]: the targets, ignored (and, on a device, bad) ones set to class 0
  Tensor valid;   // bool [N, *]: the targets that count (not ignored, not bad)
  bool unbatched = false;
};

// Checks that `weight` is undefined or has one entry per class, [classes], for loss `op`.
void check_class_weight(const char* op, const Tensor& weight, int64_t classes);

// Checks `target` (int64 [N, *], or [] for a [C] input) and `weight` (undefined or [C])
// against `input` [N, C, *] or [C] for loss `op`: shapes and dtypes at once, the target
// values as said above. Raises brisk::Error naming `op` and what is wrong.
ClassTargets check_class_targets(const char* op, const Tensor& input, const Tensor& target, const Tensor& weight,
                                 int64_t ignore_index);

}  // namespace brisk::nn::functional::detail
