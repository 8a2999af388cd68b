#include "nn/functional/class_targets.h"

#include <string>
#include <utility>
#include <vector>

#include "autograd/grad_mode.h"
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
  Tensor bad;         // int64 [] on `device`: bad targets seen in those calls
  Tensor first;       // int64 [3] on `device`: the first bad one's call, element (flattened) and value
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
  TensorOptions on_device = TensorOptions(kInt64).device(device);
  deferred_checks.push_back({op, device, classes, ignore_index, 0, zeros({}, on_device), zeros({3}, on_device)});
  return deferred_checks.back();
}

std::string bad_target_message(const char* op, int64_t value, int64_t classes, int64_t ignore_index) {
  return fmt::format("{}: target {} is out of bounds for {} classes (ignore_index {})", op, value, classes,
                     ignore_index);
}

// The host reads every target: a CPU tensor costs no synchronization.
void check_on_host(const char* op, const Tensor& target, int64_t classes, int64_t ignore_index) {
  for (int64_t value : target.to_vector<int64_t>()) {
    BRISK_CHECK(value == ignore_index || (value >= 0 && value < classes), "{}",
                bad_target_message(op, value, classes, ignore_index));
  }
}

// Folds the bad entries of `flat` (int64 [n], n > 0) into its device's record: a dozen small
// kernels, queued without waiting.
void record_on_device(const char* op, const Tensor& flat, const Tensor& bad, int64_t classes, int64_t ignore_index) {
  DeferredCheck& check = deferred_check(op, flat.device(), classes, ignore_index);
  Tensor position = bad.to(kInt64).argmax();  // the first bad element (0 when there is none)
  Tensor value = flat.index_select(0, position.view({1})).view({});
  Tensor call = full({}, check.calls, TensorOptions(kInt64).device(flat.device()));
  Tensor record = stack({call, position, value});
  check.first = where(check.bad.gt(0), check.first, record);
  check.bad = check.bad + bad.sum();
  // A loop that never reads its records still learns of a bad target, kMaxUncheckedCalls
  // calls later at the latest (one synchronization per that many calls).
  if (++check.calls >= kMaxUncheckedCalls) check_deferred_targets();
}

}  // namespace

void check_class_weight(const char* op, const Tensor& weight, int64_t classes) {
  BRISK_CHECK(!weight.defined() || (weight.dim() == 1 && weight.size(0) == classes),
              "{}: weight {} should have one entry per class ([{}])", op, weight.describe(), classes);
}

ClassTargets check_class_targets(const char* op, const Tensor& input, const Tensor& target, const Tensor& weight,
                                 int64_t ignore_index) {
  BRISK_CHECK(input.dim() >= 1 && input.is_floating_point(),
              "{}: expected a floating point input [N, C, ...] or [C], got {}", op, input.describe());
  BRISK_CHECK(target.dtype() == kInt64, "{}: expected int64 class-index targets, got {}", op, target.describe());
  BRISK_CHECK(target.device() == input.device(), "{}: target {} is not on the input's device {}", op, target.describe(),
              input.device());
  ClassTargets t;
  t.unbatched = input.dim() == 1;
  t.input = t.unbatched ? input.unsqueeze(0) : input;
  Tensor raw = t.unbatched ? target.unsqueeze(0) : target;
  Shape expected = t.input.sizes();
  expected.erase(expected.begin() + 1);
  BRISK_CHECK(raw.sizes() == expected, "{}: input {} expects a target of shape {}, got target {}", op, input.sizes(),
              t.unbatched ? Shape{} : expected, target.sizes());
  const int64_t classes = t.input.size(1);
  check_class_weight(op, weight, classes);

  autograd::NoGradGuard no_grad;
  t.valid = raw.ne(ignore_index);
  if (raw.is_cpu()) {
    check_on_host(op, raw, classes, ignore_index);
  } else if (raw.numel() > 0) {
    Tensor flat = raw.flatten();
    Tensor bad = logical_and(flat.ne(ignore_index), logical_or(flat.lt(0), flat.ge(classes)));
    record_on_device(op, flat, bad, classes, ignore_index);
    t.valid = logical_and(t.valid, bad.logical_not().view(raw.sizes()));
  }
  t.target = masked_fill(raw, t.valid.logical_not(), 0);
  return t;
}

}  // namespace detail

void check_deferred_targets() {
  std::vector<detail::DeferredCheck> checks = std::move(detail::deferred_checks);
  detail::deferred_checks.clear();
  for (const detail::DeferredCheck& check : checks) {
    // [bad, call, element, value] in one copy.
    std::vector<int64_t> found = cat({check.bad.view({1}), check.first}).to_vector<int64_t>();
    if (found[0] == 0) continue;
    BRISK_FAIL("{}, found by the check on {}: element {} of the target of call {} of {} since the last check "
               "({} bad targets in all)",
               detail::bad_target_message(check.op.c_str(), found[3], check.classes, check.ignore_index), check.device,
               found[2], found[1] + 1, check.calls, found[0]);
  }
}

}  // namespace brisk::nn::functional
