#pragma once
// The per-element rules of the fused nll_loss kernels, shared by the CPU and CUDA backends:
// which targets count, and how one call's bad targets fold into the target record.
#include <cstdint>

#include "tensor/macros.h"

namespace brisk::functors {

// A target counts when it is a class in [0, classes) other than ignore_index. One outside
// that range and not ignore_index is bad: it counts as ignored, so that nothing indexes out
// of bounds, and the forward reports it through its record.
BRISK_INLINE bool is_bad_target(int64_t target, int64_t classes, int64_t ignore_index) {
  return target != ignore_index && (target < 0 || target >= classes);
}
BRISK_INLINE bool is_counted_target(int64_t target, int64_t classes, int64_t ignore_index) {
  return target != ignore_index && target >= 0 && target < classes;
}

// The target record, int64 [4]: {bad targets so far, call, element and value of the first}.
// A call that met `bad` > 0 bad targets, the first at flattened `element` with `value`, adds
// its count and, when the record held none, becomes its first.
BRISK_INLINE void fold_bad_targets(int64_t* record, int64_t bad, int64_t call, int64_t element, int64_t value) {
  if (bad == 0) return;
  if (record[0] == 0) {
    record[1] = call;
    record[2] = element;
    record[3] = value;
  }
  record[0] += bad;
}

}  // namespace brisk::functors
