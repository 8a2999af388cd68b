// nn::SyncBatchNorm and convert_sync_batchnorm on their own (no process group: plain
// BatchNorm). sync_batchnorm_multiprocess_test runs the exchange over real process groups.
#include <catch2/catch.hpp>
#include <sstream>

#include "autograd/ops.h"
#include "distributed/nn/sync_batchnorm.h"
#include "nn/modules/batchnorm.h"
#include "nn/modules/linear.h"
#include "nn/sequential.h"
#include "tests/test_device.h"

namespace brisk::nn {
namespace {

using Catch::Matchers::Contains;
using test::max_abs_diff;
using test::test_device;

test::LeafMaker leaf(13);

struct NetImpl : Module {
  NetImpl() {
    fc = register_module("fc", Linear(4, 3));
    bn = register_module("bn", BatchNorm1d(3));
    head = register_module("head", Sequential(Linear(3, 2), BatchNorm1d(2)));
  }
  Linear fc{nullptr};
  BatchNorm1d bn{nullptr};
  Sequential head{nullptr};
};
BRISK_MODULE(Net);

TEST_CASE("convert_sync_batchnorm converts every BatchNorm layer in place, keeping the state_dict") {
  Net net;
  std::vector<std::string> keys_before;
  for (const auto& item : net->state_dict()) keys_before.push_back(item.first);
  CHECK(convert_sync_batchnorm(*net) == 2);
  std::vector<std::string> keys_after;
  for (const auto& item : net->state_dict()) keys_after.push_back(item.first);
  CHECK(keys_after == keys_before);
  CHECK(net->bn->stats_exchange != nullptr);
  std::ostringstream printed;
  printed << *net->bn;
  CHECK_THAT(printed.str(), Contains("SyncBatchNorm(3, eps=1e-05, momentum=0.1"));
}

TEST_CASE("SyncBatchNorm alone (no process group) is BatchNorm") {
  SyncBatchNorm sync(BatchNormOptions(3).momentum(std::nullopt));
  BatchNorm2d plain(BatchNormOptions(3).momentum(std::nullopt));
  sync->to(kFloat64);
  plain->to(kFloat64);
  Tensor x = leaf({4, 3, 2, 2}, 2.0, 1.0).detach();
  for (int step = 0; step < 2; ++step) CHECK(max_abs_diff(sync(x.to(kCPU)), plain(x.to(kCPU))) == 0);
  CHECK(max_abs_diff(sync->running_var, plain->running_var) == 0);
  CHECK(sync->num_batches_tracked.item<int64_t>() == 2);
  CHECK_THROWS_WITH(sync(zeros({2, 3, 1, 1, 1, 1})), Contains("SyncBatchNorm: expected a 2-D or 3-D or 4-D or 5-D"));
}

// A rank of a data-parallel job may hold no rows; with world size 1 (one GPU over NCCL) that
// is the whole batch, and SyncBatchNorm is BatchNorm. As in PyTorch, the output is empty, the
// running statistics stay and weight and bias get zero gradients (issue 32, item 6).
TEST_CASE("BatchNorm and SyncBatchNorm alone take an empty batch, leaving the running statistics") {
  for (bool sync : {false, true}) {
    DYNAMIC_SECTION((sync ? "SyncBatchNorm" : "BatchNorm2d")) {
      const BatchNormOptions options = BatchNormOptions(3).momentum(0.3);
      SyncBatchNorm sync_bn(options);
      BatchNorm2d plain_bn(options);
      BatchNormImplBase& bn = sync ? static_cast<BatchNormImplBase&>(*sync_bn) : *plain_bn;
      bn.to(kFloat64);
      bn.to(test_device());
      bn.forward(leaf({4, 3, 2, 2}, 2.0, 1.0).detach());  // running statistics of their own
      const Tensor running_mean = bn.running_mean.clone(), running_var = bn.running_var.clone();

      Tensor x = leaf({0, 3, 2, 2});
      Tensor y = bn.forward(x);
      CHECK(y.sizes() == Shape{0, 3, 2, 2});
      y.sum().backward();
      CHECK(x.grad().sizes() == Shape{0, 3, 2, 2});
      CHECK(max_abs_diff(bn.weight.grad(), zeros({3}, TensorOptions(kFloat64).device(test_device()))) == 0);
      CHECK(max_abs_diff(bn.bias.grad(), zeros({3}, TensorOptions(kFloat64).device(test_device()))) == 0);
      CHECK(max_abs_diff(bn.running_mean, running_mean) == 0);
      CHECK(max_abs_diff(bn.running_var, running_var) == 0);
      CHECK(bn.num_batches_tracked.to(kCPU).item<int64_t>() == 2);  // PyTorch counts it too

      bn.eval();
      CHECK(bn.forward(x.detach()).sizes() == Shape{0, 3, 2, 2});
    }
  }
}

}  // namespace
}  // namespace brisk::nn
