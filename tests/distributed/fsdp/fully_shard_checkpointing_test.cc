// fully_shard with activation checkpointing (nn::utils::checkpoint) on thread ranks, around
// blocks that contain units and around single units (whose forward is then recomputed inside
// their backward, which must keep the gathered parameters): training equals one process without
// checkpointing on the global batch (float64, 1e-12), and nothing stays gathered after backward.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "nn/functional.h"
#include "optim/sgd.h"
#include "tensor/generator.h"
#include "tensor/native/ops.h"
#include "tests/distributed/ddp/test_models.h"
#include "tests/distributed/ddp/thread_process_group.h"
#include "tests/distributed/fsdp/fsdp_training.h"

namespace brisk::dist::testing {
namespace {

namespace F = nn::functional;

// Each layer's call (a whole unit) checkpointed on its own: the unit's output is the
// checkpointed region's, so its backward starts before the region is recomputed, and the
// recomputation's forward hooks run inside the unit's backward.
struct CheckpointedUnitsImpl : nn::Module {
  CheckpointedUnitsImpl() {
    fc1 = register_module("fc1", nn::Linear(8, 16));
    fc2 = register_module("fc2", nn::Linear(16, 12));
    fc3 = register_module("fc3", nn::Linear(12, 4));
  }
  Tensor forward(const Tensor& x) override {
    auto layer = [this](nn::Linear fc, const Tensor& in) {
      if (!checkpointed) return fc(in);
      return nn::utils::checkpoint([fc](const Tensor& t) mutable { return fc(t); }, in);
    };
    return layer(fc3, F::relu(layer(fc2, F::relu(layer(fc1, x)))));
  }
  nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
  bool checkpointed = true;
};
BRISK_MODULE(CheckpointedUnits);

template <typename Net>
Net make_net(bool checkpointed) {
  manual_seed(3);
  Net net;
  net->to(kFloat64);
  net->checkpointed = checkpointed;
  return net;
}

std::pair<Tensor, Tensor> batch(int step) {
  Generator gen(900 + step);
  Tensor x = native::empty({12, 8}, kFloat64);
  native::normal_(x, 0.0, 1.0, &gen);
  return {x, native::randint(0, 4, {12}, kInt64, &gen)};
}

template <typename Net>
void check_checkpointing(bool reshard_after_forward) {
  INFO("reshard_after_forward " << reshard_after_forward);
  Net reference = make_net<Net>(false);
  optim::SGD reference_opt(reference->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  for (int step = 0; step < 3; ++step) {
    auto [x, y] = batch(step);
    reference_opt.zero_grad();
    F::cross_entropy(reference(x), y).backward();
    reference_opt.step();
  }
  const int world = 3;
  std::vector<Net> nets;
  for (int rank = 0; rank < world; ++rank) nets.push_back(make_net<Net>(true));
  auto shared = std::make_shared<ThreadWorld>(world, std::chrono::seconds(20));
  std::vector<nn::StateDict> results(world);
  std::vector<std::string> errors(world);
  run_ranks(world, [&](int rank) {
    try {
      auto group = std::make_shared<ThreadProcessGroup>(shared, rank);
      Net& net = nets[rank];
      const auto options = FullyShardOptions().group(group).reshard_after_forward(reshard_after_forward);
      std::vector<FSDPModule> units{fully_shard(*net->fc1, options), fully_shard(*net->fc2, options),
                                    fully_shard(*net->fc3, options), fully_shard(*net.ptr(), options)};
      optim::SGD opt(net->parameters(), optim::SGDOptions(0.1).momentum(0.9));
      for (int step = 0; step < 3; ++step) {
        auto [x, y] = batch(step);
        opt.zero_grad();
        F::cross_entropy(net(x.narrow(0, rank * 4, 4)), y.narrow(0, rank * 4, 4)).backward();
        for (const FSDPModule& u : units) THREAD_CHECK(u.unit().unsharded_bytes() == 0);
        opt.step();
      }
      for (FSDPModule& u : units) u.unshard();
      for (const auto& item : net->named_parameters()) results[rank].insert(item.key(), native::clone(item.value()));
      for (FSDPModule& u : units) u.reshard();
    } catch (const std::exception& e) {
      errors[rank] = e.what();
    }
  });
  REQUIRE(errors == std::vector<std::string>(world, ""));
  for (const nn::StateDict& r : results) CHECK(max_abs_difference(r, reference->named_parameters()) < 1e-12);
}

TEST_CASE("fully_shard composes with activation checkpointing around blocks of units", "[fsdp]") {
  check_checkpointing<CheckpointedNet>(GENERATE(true, false));
}

TEST_CASE("fully_shard composes with activation checkpointing of whole units", "[fsdp]") {
  check_checkpointing<CheckpointedUnits>(GENERATE(true, false));
}

}  // namespace
}  // namespace brisk::dist::testing
