#include "nn/functional/class_targets.h"

#include <string>
#include <utility>
#include <vector>

#include "autograd/ops.h"
#include "nn/functional.h"

namespace brisk::nn::functional {
namespace detail {
namespace {

// The bad targets that one loss, with one class count and ignore_index, met on one device
// since the last check_deferred_targets().
struct DeferredCheck {
  std::string op;
  Device device;
  int64_t classes;
  int64_t ignore_index;
  int64_t calls = 0;  // the calls recorded so far
  Tensor record;      // int64 [4] on `device`: {bad targets, call, element, value of the first}
};

constexpr int64_t kMaxUncheckedCalls = 1000;

// Per thread: each thread checks what it computed, and no lock is taken on the training path.
thread_local std::vector<DeferredCheck> deferred_checks;

DeferredCheck& deferred_check(const char* op, Device device, int64_t classes, int64_t ignore_index) {
  for (DeferredCheck& check : deferred_checks) {
    if (check.op == op && check.device == device && check.classes == classes && check.ignore_index == ignore_index) {
      return check;
    }
  }
  deferred_checks.push_back({op, device, classes, ignore_index, 0, zeros({4}, TensorOptions(kInt64).device(device))});
  return deferred_checks.back();
}

std::string bad_target_message(const char* op, int64_t value, int64_t classes, int64_t ignore_index) {
  return fmt::format("{}: target {} is out of bounds for {} classes (ignore_index {})", op, value, classes,
                     ignore_index);
}

}  // namespace

void check_class_weight(const char* op, const Tensor& weight, int64_t classes) {
  BRISK_CHECK(!weight.defined() || (weight.dim() == 1 && weight.size(0) == classes),
              "{}: weight {} should have one entry per class ([{}])", op, weight.describe(), classes);
}

void check_class_targets(const char* op, const Tensor& input, const Tensor& target, const Tensor& weight) {
  BRISK_CHECK(input.dim() >= 1 && input.is_floating_point(),
              "{}: expected a floating point input [N, C, ...] or [C], got {}", op, input.describe());
  BRISK_CHECK(target.dtype() == kInt64, "{}: expected int64 class-index targets, got {}", op, target.describe());
  BRISK_CHECK(target.device() == input.device(), "{}: target {} is not on the input's device {}", op, target.describe(),
              input.device());
  const bool unbatched = input.dim() == 1;
  Shape expected = input.sizes();
  expected.erase(expected.begin() + (unbatched ? 0 : 1));
  BRISK_CHECK(target.sizes() == expected, "{}: input {} expects a target of shape {}, got target {}", op, input.sizes(),
              expected, target.sizes());
  check_class_weight(op, weight, input.size(unbatched ? 0 : 1));
  BRISK_CHECK(!weight.defined() || weight.device() == input.device(), "{}: weight {} is not on the input's device {}",
              op, weight.describe(), input.device());
}

TargetRecord target_record(const char* op, Device device, int64_t classes, int64_t ignore_index, int64_t targets) {
  TargetRecord r{op, device, classes, ignore_index};
  if (targets == 0) return r;
  if (device.is_cpu()) {
    r.record = zeros({4}, kInt64);
  } else {
    DeferredCheck& check = deferred_check(op, device, classes, ignore_index);
    r.record = check.record;
    r.call = check.calls;
  }
  return r;
}

void finish_target_record(const TargetRecord& r) {
  if (!r.record.defined()) return;
  if (r.device.is_cpu()) {  // the host reads its own memory: no synchronization
    const int64_t* found = r.record.data_ptr<int64_t>();
    BRISK_CHECK(found[0] == 0, "{}, element {} of the target",
                bad_target_message(r.op, found[3], r.classes, r.ignore_index), found[2]);
    return;
  }
  DeferredCheck& check = deferred_check(r.op, r.device, r.classes, r.ignore_index);
  // A loop that never reads its records still learns of a bad target, kMaxUncheckedCalls
  // calls later at the latest (one synchronization per that many calls).
  if (++check.calls >= kMaxUncheckedCalls) check_deferred_targets();
}

}  // namespace detail

void check_deferred_targets() {
  std::vector<detail::DeferredCheck> checks = std::move(detail::deferred_checks);
  detail::deferred_checks.clear();
  for (const detail::DeferredCheck& check : checks) {
    std::vector<int64_t> found = check.record.to_vector<int64_t>();  // {bad, call, element, value}
    if (found[0] == 0) continue;
    BRISK_FAIL("{}, found by the check on {}: element {} of the target of call {} of {} since the last check "
               "({} bad targets in all)",
               detail::bad_target_message(check.op.c_str(), found[3], check.classes, check.ignore_index), check.device,
               found[2], found[1] + 1, check.calls, found[0]);
  }
}

}  // namespace brisk::nn::functional
