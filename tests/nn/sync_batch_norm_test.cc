// sync_batch_norm within one process: the parts of a batch that several processes would hold,
// each normalized with statistics exchanged in memory, against batch_norm on their
// concatenation (float64: outputs, every gradient, running statistics), and the float64
// gradcheck of the whole exchange as one function of all the parts.
// tests/distributed/nn/sync_batchnorm_multiprocess_test.cc runs the exchange over real process
// groups.
#include <catch2/catch.hpp>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "nn/functional.h"
#include "nn/modules/batchnorm.h"
#include "nn/modules/linear.h"
#include "nn/sequential.h"
#include "tests/test_device.h"

namespace brisk::nn {
namespace {

namespace F = functional;
using autograd::gradcheck;
using autograd::gradgradcheck;
using Catch::Matchers::Contains;
using TensorList = std::vector<Tensor>;
using test::max_abs_diff;
using test::test_device;

test::LeafMaker leaf(13);

// The statistics a process holding `part` contributes, with their history: what
// sync_batch_norm hands its exchange.
Tensor contributed_stats(const Tensor& part) {
  struct Recorder : F::BatchStatsExchange {
    mutable Tensor seen;
    int size() const override { return 1; }
    Tensor all_gather(const Tensor& stats) const override {
      seen = stats;
      return stats.unsqueeze(0);
    }
  } recorder;
  F::sync_batch_norm(part, Tensor(), Tensor(), Tensor(), Tensor(), 0.1, 1e-5, recorder);
  return recorder.seen;
}

// Process `self` of several in one process: the others' statistics are given.
class InMemoryExchange : public F::BatchStatsExchange {
 public:
  InMemoryExchange(TensorList stats, int self) : stats_(std::move(stats)), self_(self) {}
  int size() const override { return static_cast<int>(stats_.size()); }
  Tensor all_gather(const Tensor& stats) const override {
    TensorList all = stats_;
    all[self_] = stats;
    return stack(all);
  }

 private:
  TensorList stats_;
  int self_;
};

// Every part normalized as its process would, each updating its own running statistics
// (when given): the outputs, in order.
TensorList sync_batch_norm_parts(const TensorList& parts, const Tensor& weight, const Tensor& bias,
                                 const TensorList& running_means = {}, const TensorList& running_vars = {},
                                 double momentum = 0.1) {
  TensorList stats;
  for (const Tensor& part : parts) stats.push_back(contributed_stats(part));
  TensorList outputs;
  for (size_t p = 0; p < parts.size(); ++p) {
    Tensor rm = running_means.empty() ? Tensor() : running_means[p];
    Tensor rv = running_vars.empty() ? Tensor() : running_vars[p];
    outputs.push_back(F::sync_batch_norm(parts[p], rm, rv, weight, bias, momentum, 1e-5,
                                         InMemoryExchange(stats, static_cast<int>(p))));
  }
  return outputs;
}

// The rows of `batch` split into parts of these sizes, as leaves.
TensorList split_leaves(const Tensor& batch, const std::vector<int64_t>& sizes) {
  TensorList parts;
  int64_t start = 0;
  for (int64_t n : sizes) {
    parts.push_back(batch.narrow(0, start, n).detach().contiguous().requires_grad_());
    start += n;
  }
  return parts;
}

struct SplitCase {
  const char* name;
  Shape shape;  // of the whole batch
  std::vector<int64_t> parts;
};

TEST_CASE("sync_batch_norm over parts equals batch_norm over their concatenation") {
  const SplitCase cases[] = {
      {"two equal parts, [N, C, H, W]", {6, 3, 2, 3}, {3, 3}},
      {"unequal parts, [N, C]", {9, 4}, {2, 7}},
      {"an empty part among three, [N, C, L]", {5, 2, 3}, {2, 0, 3}},
  };
  for (const SplitCase& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const int64_t channels = c.shape[1];
      const TensorOptions options = TensorOptions(kFloat64).device(test_device());
      Tensor batch = leaf(c.shape, 3.0, 5.0), weight = leaf({channels}), bias = leaf({channels});
      Tensor grad_out = leaf(c.shape).detach();
      TensorList parts = split_leaves(batch, c.parts);
      Tensor sync_weight = weight.detach().clone().requires_grad_(), sync_bias = bias.detach().clone().requires_grad_();

      Tensor rm = zeros({channels}, options), rv = ones({channels}, options);
      Tensor expected = F::batch_norm(batch, rm, rv, weight, bias, true, 0.1, 1e-5);
      (expected * grad_out).sum().backward();

      TensorList rms, rvs;
      for (size_t p = 0; p < parts.size(); ++p) {
        rms.push_back(zeros({channels}, options));
        rvs.push_back(ones({channels}, options));
      }
      TensorList outputs = sync_batch_norm_parts(parts, sync_weight, sync_bias, rms, rvs);
      Tensor sync_loss = zeros({}, options);
      int64_t start = 0;
      for (size_t p = 0; p < parts.size(); ++p) {
        sync_loss = sync_loss + (outputs[p] * grad_out.narrow(0, start, c.parts[p])).sum();
        start += c.parts[p];
      }
      sync_loss.backward();

      start = 0;
      for (size_t p = 0; p < parts.size(); ++p) {
        INFO("part " << p);
        CHECK(max_abs_diff(outputs[p], expected.narrow(0, start, c.parts[p])) < 1e-12);
        CHECK(max_abs_diff(parts[p].grad(), batch.grad().narrow(0, start, c.parts[p])) < 1e-12);
        CHECK(max_abs_diff(rms[p], rm) < 1e-12);
        CHECK(max_abs_diff(rvs[p], rv) < 1e-12);
        start += c.parts[p];
      }
      // Each process's weight and bias gradients are its part's; summed, as DDP does.
      CHECK(max_abs_diff(sync_weight.grad(), weight.grad()) < 1e-12);
      CHECK(max_abs_diff(sync_bias.grad(), bias.grad()) < 1e-12);
    }
  }
}

TEST_CASE("gradcheck: sync_batch_norm as one function of every part") {
  SECTION("three parts with weight and bias") {
    auto fn = [](const TensorList& in) {
      TensorList outputs = sync_batch_norm_parts({in[0], in[1], in[2]}, in[3], in[4]);
      return cat({outputs[0].flatten(), outputs[1].flatten(), outputs[2].flatten()});
    };
    TensorList inputs{leaf({2, 3, 2}, 2.0), leaf({1, 3, 2}, 1.0, 1.0), leaf({3, 3, 2}), leaf({3}), leaf({3})};
    CHECK(gradcheck(fn, inputs));
    CHECK(gradgradcheck(fn, inputs));
  }
  SECTION("two parts without affine, one of them empty") {
    auto fn = [](const TensorList& in) {
      TensorList outputs = sync_batch_norm_parts({in[0], in[1]}, Tensor(), Tensor());
      return cat({outputs[0].flatten(), outputs[1].flatten()});
    };
    CHECK(gradcheck(fn, {leaf({4, 2}), leaf({0, 2})}));
  }
}

TEST_CASE("sync_batch_norm errors name it and the argument") {
  Tensor x = leaf({4, 3});
  InMemoryExchange exchange({Tensor(), Tensor()}, 0);
  CHECK_THROWS_WITH(F::sync_batch_norm(x, Tensor(), Tensor(), leaf({2}), Tensor(), 0.1, 1e-5, exchange),
                    Contains("sync_batch_norm: weight") && Contains("should have shape [3]"));
  CHECK_THROWS_WITH(F::sync_batch_norm(leaf({4}), Tensor(), Tensor(), Tensor(), Tensor(), 0.1, 1e-5, exchange),
                    Contains("sync_batch_norm: expected an input [N, C, *] with at least 2 dims"));
}

}  // namespace
}  // namespace brisk::nn
