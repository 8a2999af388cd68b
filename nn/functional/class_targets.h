#pragma once
// The class-index targets of nll_loss and cross_entropy, checked against their input.
//
//   check_class_targets("nll_loss", input, target, weight);  // shapes, dtypes, devices
//   TargetRecord r = target_record("nll_loss", input.device(), classes, ignore_index, target.numel());
//   ... the fused nll_loss kernel runs, folding its bad targets into r.record ...
//   finish_target_record(r);  // CPU: raises for a bad target; device: counts the call
//
// A target must be ignore_index or a class in [0, C). The nll_loss kernel itself checks the
// values (tensor/functors/nll_loss.h): it counts a bad target as ignored, so that nothing
// indexes out of bounds, and folds the call's count of bad targets and its first one into an
// int64 [4] record {bad targets, call, element, value}. On the CPU the record is the call's
// own and a bad target raises at the call. On an accelerator, reading the targets back would
// make the host wait for the device on every training step, so the record is kept on that
// device, one per loss, device, class count and ignore_index, and check_deferred_targets()
// (nn/functional.h) reads the records, one copy each, and raises for the first bad target
// since the last check, naming its value, where it was and the number of classes: no kernel
// beyond the loss's own, no host synchronization. A program that never calls it is still
// stopped: the 1000th call recorded since the last check runs the check itself.
#include <cstdint>

#include "tensor/tensor.h"

namespace brisk::nn::functional::detail {

// Checks that `weight` is undefined or has one entry per class, [classes], for loss `op`.
void check_class_weight(const char* op, const Tensor& weight, int64_t classes);

// Checks `target` (int64 [N, *], or [] for a [C] input) and `weight` (undefined or [C])
// against `input` [N, C, *] or [C] for loss `op`: shapes, dtypes and devices; the values are
// the kernel's. Raises brisk::Error naming `op` and what is wrong.
void check_class_targets(const char* op, const Tensor& input, const Tensor& target, const Tensor& weight);

// Where one call of loss `op` records its bad targets.
struct TargetRecord {
  const char* op = nullptr;
  Device device;
  int64_t classes = 0;
  int64_t ignore_index = 0;
  Tensor record;     // int64 [4] on `device`; undefined for an empty target (nothing to check)
  int64_t call = 0;  // the call's number since the last check (NllLossParams::call)
};

// The record for a call of `op` on `device` over `targets` targets.
TargetRecord target_record(const char* op, Device device, int64_t classes, int64_t ignore_index, int64_t targets);

// After the kernel ran: on the CPU raises brisk::Error for the call's first bad target, naming
// its value, the classes and the element; on a device counts the call.
void finish_target_record(const TargetRecord& r);

}  // namespace brisk::nn::functional::detail
