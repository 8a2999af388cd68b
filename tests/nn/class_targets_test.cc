// The class-index targets of nll_loss and cross_entropy (nn/functional/class_targets.cc): a
// bad target raises at the call on the CPU, and on a device (sim:0 here) at the next
// check_deferred_targets(), without the call copying anything to the host.
#include <catch2/catch.hpp>

#include <cmath>

#include "autograd/ops.h"
#include "nn/functional.h"
#include "tensor/sim/sim_backend.h"

using namespace brisk;
namespace F = brisk::nn::functional;
using Catch::Contains;

namespace {

uint64_t device_to_host_copies() { return sim::copy_counts().device_to_host; }

Tensor logits_on(Device device) { return arange(0.0, 12.0, 1.0, kFloat32).view({3, 4}).to(device); }

Tensor targets_on(std::vector<int64_t> values, Device device) {
  return tensor<int64_t>(values, {static_cast<int64_t>(values.size())}).to(device);
}

}  // namespace

TEST_CASE("class targets on the CPU: a bad one raises at the call, naming the value and the classes") {
  F::check_deferred_targets();
  CHECK_THROWS_WITH(F::cross_entropy(logits_on(kCPU), targets_on({0, 4, 1}, kCPU)),
                    Contains("cross_entropy: target 4 is out of bounds for 4 classes (ignore_index -100)"));
  CHECK_THROWS_WITH(F::nll_loss(logits_on(kCPU), targets_on({-1, 0, 1}, kCPU)),
                    Contains("nll_loss: target -1 is out of bounds for 4 classes"));
  // Once per call, under the caller's name, with label smoothing too.
  CHECK_THROWS_WITH(
      F::cross_entropy(logits_on(kCPU), targets_on({9, 0, 1}, kCPU), Tensor(), -100, nn::Reduction::Mean, 0.2),
      Contains("cross_entropy: target 9 is out of bounds"));
  CHECK(std::isfinite(F::cross_entropy(logits_on(kCPU), targets_on({3, -1, 0}, kCPU), Tensor(), -1).item<double>()));
  CHECK_THROWS_WITH(F::cross_entropy(logits_on(kCPU), targets_on({0, 1, 2}, sim_device(0))),
                    Contains("cross_entropy: target") && Contains("is not on the input's device cpu"));
}

TEST_CASE("class targets on a device: checked there, no copy to the host; the loss is the CPU's") {
  F::check_deferred_targets();
  const Device sim = sim_device(0);
  Tensor cpu_loss =
      F::cross_entropy(logits_on(kCPU), targets_on({3, 0, 1}, kCPU), Tensor(), -100, nn::Reduction::Mean, 0.1);
  Tensor cpu_nll = F::nll_loss(logits_on(kCPU), targets_on({3, -100, 1}, kCPU));
  const uint64_t before = device_to_host_copies();
  Tensor loss = F::cross_entropy(logits_on(sim), targets_on({3, 0, 1}, sim), Tensor(), -100, nn::Reduction::Mean, 0.1);
  Tensor nll = F::nll_loss(logits_on(sim), targets_on({3, -100, 1}, sim));
  CHECK(device_to_host_copies() == before);
  CHECK(loss.device() == sim);
  CHECK(loss.item<float>() == cpu_loss.item<float>());
  CHECK(nll.item<float>() == cpu_nll.item<float>());
  const uint64_t checked = device_to_host_copies();
  CHECK_NOTHROW(F::check_deferred_targets());
  CHECK(device_to_host_copies() == checked + 2);  // one read per loss and device
  CHECK_NOTHROW(F::check_deferred_targets());     // nothing left to read
  CHECK(device_to_host_copies() == checked + 2);
}

TEST_CASE("class targets on a device: a bad one raises at the check, naming value, classes, call and element") {
  F::check_deferred_targets();
  const Device sim = sim_device(0);
  const uint64_t before = device_to_host_copies();
  Tensor good = F::cross_entropy(logits_on(sim), targets_on({0, 1, 2}, sim));
  Tensor bad = F::cross_entropy(logits_on(sim), targets_on({0, 1, 7}, sim));
  Tensor worse = F::cross_entropy(logits_on(sim), targets_on({-5, 9, 1}, sim));
  CHECK(device_to_host_copies() == before);
  // Until the check a bad target counts as ignored: nothing indexes out of bounds.
  CHECK(bad.item<float>() == F::cross_entropy(logits_on(kCPU), targets_on({0, 1, -100}, kCPU)).item<float>());
  CHECK_THROWS_WITH(F::check_deferred_targets(),
                    Contains("cross_entropy: target 7 is out of bounds for 4 classes (ignore_index -100)") &&
                        Contains("found by the check on sim:0: element 2 of the target of call 2 of 3 since the "
                                 "last check (3 bad targets in all)"));
  CHECK_NOTHROW(F::check_deferred_targets());  // a failed check forgets what it read

  // Targets [N, d]: the element is counted in the flattened target; ignore_index is no error.
  Tensor image_logits = zeros({2, 4, 3}).to(sim);
  F::nll_loss(image_logits, tensor<int64_t>({0, -1, 3, 2, 4, 1}, {2, 3}).to(sim), Tensor(), -1);
  CHECK_THROWS_WITH(F::check_deferred_targets(),
                    Contains("nll_loss: target 4 is out of bounds for 4 classes (ignore_index -1)") &&
                        Contains("element 4 of the target of call 1 of 1"));
}

TEST_CASE("class targets on a device: a loop that never checks is stopped by the 1000th call") {
  F::check_deferred_targets();
  const Device sim = sim_device(0);
  Tensor logits = logits_on(sim);
  Tensor bad = targets_on({0, 5, 1}, sim);
  Tensor good = targets_on({0, 1, 2}, sim);
  F::cross_entropy(logits, bad);
  for (int call = 2; call < 1000; ++call) F::cross_entropy(logits, good);
  CHECK_THROWS_WITH(F::cross_entropy(logits, good),
                    Contains("cross_entropy: target 5 is out of bounds for 4 classes") &&
                        Contains("element 1 of the target of call 1 of 1000"));
  CHECK_NOTHROW(F::check_deferred_targets());
}
