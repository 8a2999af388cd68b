// ZeRO-2 on in-process thread ranks (ThreadProcessGroup): every scenario of zero2_scenarios.h
// on 2, 3 and 4 ranks (3 makes the shards uneven) matches single-process training, on the CPU
// and with rank r's group, replica and data on its own simulated device sim:r; and the
// collectives and errors behind it. zero2_multiprocess_test runs the scenarios across
// processes.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "distributed/zero2/zero2_data_parallel.h"
#include "models/mlp.h"
#include "optim/sgd.h"
#include "profiler/profiler.h"
#include "tensor/native/ops.h"
#include "tests/distributed/ddp/thread_process_group.h"
#include "tests/distributed/zero2/zero2_scenarios.h"

namespace brisk::dist::testing {
namespace {

using Catch::Matchers::Contains;

// fn(group) on `world` thread ranks; each rank's error ("" if none) and collectives.
struct RankRun {
  std::string error;
  std::vector<std::string> collectives;
};
std::vector<RankRun> on_threads(int world, const std::function<std::string(std::shared_ptr<ProcessGroup>)>& fn,
                                bool sim = false) {
  auto shared = std::make_shared<ThreadWorld>(world, std::chrono::seconds(60));
  std::vector<RankRun> runs(world);
  run_ranks(world, [&](int rank) {
    auto group = std::make_shared<ThreadProcessGroup>(shared, rank, sim ? sim_device(rank) : kCPU);
    try {
      runs[rank].error = fn(group);
    } catch (const std::exception& e) {
      runs[rank].error = std::string("threw: ") + e.what();
    }
    runs[rank].collectives = group->history();
  });
  return runs;
}

void check_scenario(const std::string& name, int world, bool sim) {
  auto runs = on_threads(
      world, [&](std::shared_ptr<ProcessGroup> group) { return run_zero2_scenario(name, group); }, sim);
  for (int r = 0; r < world; ++r) {
    INFO(name << " on " << world << (sim ? " sim" : " cpu") << " ranks, rank " << r);
    CHECK(runs[r].error == "");
  }
}

TEST_CASE("ZeRO-2 on thread ranks: every scenario matches single-process training", "[zero2]") {
  for (const std::string& name : zero2_scenario_names()) {
    for (int world : {2, 3, 4}) check_scenario(name, world, false);
  }
}

TEST_CASE("ZeRO-2 on thread ranks with sim devices: every scenario matches single-process training", "[zero2][sim]") {
  for (const std::string& name : zero2_scenario_names()) {
    if (name.rfind("resnet20", 0) == 0) continue;  // the CPU run covers it; sim only adds time
    check_scenario(name, 3, true);
  }
}

// An MLP 8-hidden-12-4 (hidden 16 unless a rank is given another width).
std::shared_ptr<nn::Module> mlp(int64_t hidden = 16) {
  return models::MLP(models::MLPOptions(8, 4).hidden({hidden, 12})).ptr();
}
Zero2OptimizerFactory sgd() {
  return [](std::vector<Tensor> shards) { return std::make_unique<optim::SGD>(shards, optim::SGDOptions(0.1)); };
}
void train_step(Zero2DataParallel<std::shared_ptr<nn::Module>>& model, Zero2Optimizer& opt) {
  opt.zero_grad();
  model->forward(native::ones({2, 8})).sum().backward();
  opt.step();
}

TEST_CASE("ZeRO-2 on thread ranks: a step is one reduce_scatter and one all_gather per bucket", "[zero2]") {
  std::vector<size_t> buckets(2);
  auto runs = on_threads(2, [&](std::shared_ptr<ProcessGroup> group) {
    auto model = Zero2DataParallel(mlp(), group, Zero2Options().first_bucket_cap_mb(1e-4).bucket_cap_mb(2e-4));
    Zero2Optimizer opt(*model, sgd());
    buckets[group->rank()] = model->shards().buckets().size();
    auto& history = dynamic_cast<ThreadProcessGroup&>(*group).history();
    const size_t before = history.size();
    train_step(model, opt);
    std::string failure;
    std::vector<std::string> step(history.begin() + static_cast<std::ptrdiff_t>(before), history.end());
    std::vector<std::string> expected(model->shards().buckets().size(), "reduce_scatter(AVG)");
    expected.insert(expected.end(), model->shards().buckets().size(), "all_gather");
    if (step != expected) failure = fmt::format("collectives of a step: {}", fmt::join(step, ", "));
    return failure;
  });
  // layers.2 (52 elements), layers.1 (204), layers.0 (144): three buckets.
  CHECK(buckets == std::vector<size_t>{3, 3});
  for (const RankRun& run : runs) CHECK(run.error == "");
}

TEST_CASE("ZeRO-2 on thread ranks: each bucket's reduce-scatter is a profiler event and counts in comm_overlap",
          "[zero2]") {
  profiler::Profiler prof;
  prof.start();
  std::vector<size_t> reduced(2);
  std::vector<double> communication_ms(2);
  auto runs = on_threads(2, [&](std::shared_ptr<ProcessGroup> group) {
    auto model = Zero2DataParallel(mlp(), group, Zero2Options().first_bucket_cap_mb(1e-4).bucket_cap_mb(2e-4));
    Zero2Optimizer opt(*model, sgd());
    train_step(model, opt);
    reduced[group->rank()] = model->reducer().timeline().bucket_reduced.size();
    communication_ms[group->rank()] = model->comm_overlap().communication_ms;
    return std::string();
  });
  prof.stop();
  for (const RankRun& run : runs) REQUIRE(run.error == "");
  CHECK(reduced == std::vector<size_t>{3, 3});
  for (double ms : communication_ms) CHECK(ms > 0);
  size_t events = 0;
  for (const profiler::Event& e : prof.events()) events += e.name == "ZeRO-2 bucket reduce-scatter" ? 1 : 0;
  CHECK(events == 2 * 3);
}

TEST_CASE("ZeRO-2: a bucket's gradient buffer is freed once its reduce-scatter completed, within backward", "[zero2]") {
  // One rank: each reduce-scatter completes as it is issued, so the next bucket's allocation
  // finds the last one reduced (with more ranks that depends on when the peers arrive).
  int64_t largest = 0, total = 0, most_held = 0;
  auto runs = on_threads(1, [&](std::shared_ptr<ProcessGroup> group) {
    auto model = Zero2DataParallel(mlp(), group, Zero2Options().first_bucket_cap_mb(1e-4).bucket_cap_mb(2e-4));
    Zero2Optimizer opt(*model, sgd());
    for (const ParameterShards::Bucket& bucket : model->shards().buckets()) {
      largest = std::max(largest, bucket.layout.gathered_numel());
      total += bucket.layout.gathered_numel();
    }
    // Registered after the reducer's: runs right after it for every parameter.
    const GradientReduceScatter& reducer = model->reducer();
    for (const Tensor& p : model->shards().params()) {
      p.register_post_accumulate_grad_hook(
          [&](Tensor&) { most_held = std::max(most_held, reducer.held_bucket_numel()); });
    }
    train_step(model, opt);
    return reducer.held_bucket_numel() == 0 ? std::string() : std::string("buckets held after backward");
  });
  REQUIRE(runs[0].error == "");
  CHECK(largest < total);
  CHECK(most_held == largest);
}

TEST_CASE("ZeRO-2 on thread ranks: errors name the rank and the parameter", "[zero2]") {
  SECTION("parameters of different shapes") {
    auto runs = on_threads(2, [](std::shared_ptr<ProcessGroup> group) {
      auto model = Zero2DataParallel(mlp(group->rank() == 1 ? 13 : 16), group);
      return std::string();
    });
    for (const RankRun& run : runs) {
      CHECK_THAT(run.error, Contains("Zero2DataParallel: parameter layers.0.weight has shape [13, 8] float32 on "
                                     "rank 1 but [16, 8] float32 on rank 0"));
    }
  }
  SECTION("a forward around the wrapper") {
    auto runs = on_threads(2, [](std::shared_ptr<ProcessGroup> group) {
      std::shared_ptr<nn::Module> net = mlp();
      auto model = Zero2DataParallel(net, group);
      net->forward(native::ones({2, 8})).sum().backward();
      return std::string();
    });
    for (int r = 0; r < 2; ++r) {
      CHECK_THAT(runs[r].error, Contains(fmt::format("a gradient reached parameter 'layers.2.bias' but "
                                                     "Zero2DataParallel's forward did not run in this iteration "
                                                     "(rank {})",
                                                     r)));
    }
  }
  SECTION("a parameter without a gradient") {
    auto runs = on_threads(2, [](std::shared_ptr<ProcessGroup> group) {
      auto model = Zero2DataParallel(mlp(), group);
      Zero2Optimizer opt(*model, sgd());
      // The forward's output is left out: only the last layer's bias takes part.
      model->forward(native::ones({2, 8}));
      model->shards().params().back().sum().backward();
      return std::string();
    });
    for (int r = 0; r < 2; ++r) {
      CHECK_THAT(runs[r].error, Contains(fmt::format("on rank {}, these parameters received no gradient", r)));
    }
  }
  SECTION("a factory that leaves out a shard") {
    auto runs = on_threads(2, [](std::shared_ptr<ProcessGroup> group) {
      auto model = Zero2DataParallel(mlp(), group);
      Zero2Optimizer opt(*model, [](std::vector<Tensor> shards) {
        shards.pop_back();
        return std::make_unique<optim::SGD>(shards, optim::SGDOptions(0.1));
      });
      return std::string();
    });
    CHECK_THAT(runs[1].error, Contains("rank 1: the factory's SGD leaves out the shard of 'layers.2.bias'"));
  }
  SECTION("a model moved after wrapping") {
    auto runs = on_threads(2, [](std::shared_ptr<ProcessGroup> group) {
      std::shared_ptr<nn::Module> net = mlp();
      auto model = Zero2DataParallel(net, group);
      Zero2Optimizer opt(*model, sgd());
      // As Module::to does: the parameter's memory is replaced.
      net->parameters()[0].set_data(native::clone(net->parameters()[0]));
      train_step(model, opt);
      return std::string();
    });
    CHECK_THAT(runs[0].error, Contains("rank 0: parameter 'layers.0.weight' no longer holds the memory its shard"));
  }
  SECTION("state_dict before consolidation, and a state of the wrong shape") {
    auto runs = on_threads(2, [](std::shared_ptr<ProcessGroup> group) {
      auto model = Zero2DataParallel(mlp(), group);
      Zero2Optimizer opt(*model, sgd());
      std::string errors;
      try {
        opt.state_dict();
      } catch (const Error& e) {
        errors += e.what();
      }
      optim::OptimizerState state = opt.local_optimizer().state_dict();
      state.tensors["state.0.momentum_buffer"] = native::zeros({3});
      try {
        opt.load_state_dict(state);
      } catch (const Error& e) {
        errors += e.what();
      }
      return errors;
    });
    for (int r = 0; r < 2; ++r) {
      CHECK_THAT(runs[r].error, Contains(fmt::format("rank {}: state_dict() before consolidate_state_dict()", r)));
      CHECK_THAT(runs[r].error, Contains("\"state.0.momentum_buffer\" is [3] float32 cpu but parameter "
                                         "'layers.0.weight' is [16, 8] float32 cpu"));
    }
  }
}

}  // namespace
}  // namespace brisk::dist::testing
