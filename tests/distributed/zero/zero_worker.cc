// One rank of a ZeroRedundancyOptimizer scenario across processes, started by the launcher:
//
//   launch --nproc-per-node 3 tests/distributed/zero/zero_worker [--device cpu|sim|cuda|nccl] all
//
// Every rank trains an MLP under DistributedDataParallel with a ZeroRedundancyOptimizer on
// its B rows of each batch, and computes the reference itself: one process, the plain
// optimizer, all N*B rows. `all` runs every scenario and prints "<scenario> ok ..." when it
// matches, "<scenario> FAILED ..." otherwise; the exit status is 0 only when all passed.
//   sgd, adam   5 steps with SGD (momentum) / Adam: parameters match the reference, ranks
//               are bitwise equal, and this rank holds state only for its shard.
//   state_dict  Adam: after 3 steps the state consolidated on the last rank equals the
//               reference optimizer's state_dict; state_dict() fails on the other ranks;
//               a plain Adam loading the consolidated state and a new ZeRO loading the
//               reference's continue 2 steps exactly as the reference does.
//   mismatch    rank 1 passes one parameter fewer: every rank fails, naming rank 1.
// The DDP replicas, their data and the ZeRO optimizers live on the group's device (with
// --device sim, each rank's own simulated device); the reference trains on the CPU.
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>

#include "distributed/ddp/distributed_data_parallel.h"
#include "distributed/distributed.h"
#include "distributed/host_value_collectives.h"
#include "distributed/zero/zero_redundancy_optimizer.h"
#include "models/mlp.h"
#include "optim/adam.h"
#include "optim/sgd.h"
#include "tests/distributed/ddp/test_models.h"
#include "tests/distributed/testing/optimizer_state_compare.h"
#include "tests/distributed/testing/worker_group.h"

namespace {

using namespace brisk;
using dist::testing::Batch;
namespace F = nn::functional;

constexpr int kSteps = 5;
constexpr int64_t kB = 4;  // rows per rank
constexpr double kTolerance = 1e-5;

dist::OptimizerFactory sgd() {
  return [](std::vector<Tensor> p) { return std::make_unique<optim::SGD>(p, optim::SGDOptions(0.1).momentum(0.9)); };
}
dist::OptimizerFactory adam() {
  return [](std::vector<Tensor> p) { return std::make_unique<optim::Adam>(p, optim::AdamOptions(0.01)); };
}

struct Mlp : models::MLP {
  Mlp() : models::MLP(models::MLPOptions(8, 4).hidden({16, 12})) {}
};

// One rank's view of a scenario: the reference and the ZeRO run side by side.
struct Run {
  Run(const std::shared_ptr<dist::ProcessGroup>& g, const dist::OptimizerFactory& factory, uint64_t seed)
      : group(g), ddp(nullptr) {
    Generator gen(seed);
    NoGradGuard no_grad;
    for (Tensor p : reference->parameters()) p.uniform_(-0.5, 0.5, &gen);
    for (int s = 0; s < kSteps; ++s) data.push_back(dist::testing::make_batch(g->size() * kB, {8}, 4, seed + s));
    plain = factory(reference->parameters());
    // Rank r > 0 starts perturbed: DDP's broadcast makes the replicas agree.
    dist::testing::load_perturbed(*model, dist::testing::snapshot(*reference), g->rank(), g->device());
    ddp = dist::DistributedDataParallel(model, g);
    zero = std::make_unique<dist::ZeroRedundancyOptimizer>(ddp->parameters(), factory, g);
  }

  void train_reference(int from, int to) { train_plain(reference, *plain, from, to, kCPU); }
  // One process on all rows, on `device`.
  void train_plain(Mlp& net, optim::Optimizer& opt, int from, int to, Device device) {
    for (int s = from; s < to; ++s) {
      opt.zero_grad();
      Batch all = data[s].on(device);
      F::cross_entropy(net(all.x), all.y).backward();
      opt.step();
    }
  }
  void train_zero(dist::DistributedDataParallel<Mlp>& net, dist::ZeroRedundancyOptimizer& opt, int from, int to) {
    for (int s = from; s < to; ++s) {
      opt.zero_grad();
      Batch mine = data[s].rows(group->rank() * kB, kB).on(group->device());
      F::cross_entropy(net->forward(mine.x), mine.y).backward();
      opt.step();
    }
  }

  std::shared_ptr<dist::ProcessGroup> group;
  Mlp reference, model;
  std::vector<Batch> data;
  std::unique_ptr<optim::Optimizer> plain;
  dist::DistributedDataParallel<Mlp> ddp;
  std::unique_ptr<dist::ZeroRedundancyOptimizer> zero;
};

// "" when `net` matches the reference and every rank's copy is equal, else what differs.
std::string compare_parameters(Run& run, Mlp& net, const std::string& what) {
  double diff = dist::testing::max_abs_diff(net->named_parameters(), run.reference->named_parameters());
  bool identical = dist::testing::same_as_rank0(*run.group, net->parameters());
  if (diff < kTolerance && identical) return "";
  return fmt::format("{}: max_diff={:.3g} identical={}; ", what, diff, identical);
}

// (state tensors, state elements) of `opt` for the parameters `indices` of `params`.
std::pair<int64_t, int64_t> count_state(const optim::Optimizer& opt, const std::vector<Tensor>& params,
                                        const std::vector<size_t>& indices) {
  int64_t tensors = 0, elements = 0;
  for (size_t i : indices) {
    if (const optim::ParamState* state = opt.find_state(params[i])) {
      for (const auto& item : *state) {
        tensors += 1;
        elements += item.second.numel();
      }
    }
  }
  return {tensors, elements};
}

// Training equals the reference; this rank's local optimizer holds the state of its shard
// (as much as the plain optimizer holds for those parameters) and nothing else.
std::string equivalence(const std::shared_ptr<dist::ProcessGroup>& group, const dist::OptimizerFactory& factory,
                        uint64_t seed, std::string& detail) {
  Run run(group, factory, seed);
  run.train_reference(0, kSteps);
  run.train_zero(run.ddp, *run.zero, 0, kSteps);
  std::string failure = compare_parameters(run, run.model, "parameters");

  const auto& mine = run.zero->partition()[group->rank()];
  const std::vector<Tensor>& local_params = run.zero->local_optimizer().param_groups()[0].params();
  std::vector<size_t> all_local(local_params.size());
  std::iota(all_local.begin(), all_local.end(), size_t{0});
  auto held = count_state(run.zero->local_optimizer(), local_params, all_local);
  auto expected = count_state(*run.plain, run.reference->parameters(), mine);
  std::vector<size_t> every(run.zero->params().size());
  std::iota(every.begin(), every.end(), size_t{0});
  auto total = count_state(*run.plain, run.reference->parameters(), every);
  std::vector<int64_t> summed = dist::all_reduce_values(*group, {held.first, held.second}, dist::ReduceOp::SUM);
  detail = fmt::format("state tensors {} of {}, elements {} of {}", held.first, total.first, held.second, total.second);
  const bool shard_only = local_params.size() == mine.size() && held == expected;
  if (!shard_only || summed != std::vector<int64_t>{total.first, total.second}) {
    failure += fmt::format("shard state: {} (the plain optimizer has {} tensors, {} elements for this shard; the "
                           "ranks together hold {}, {}); ",
                           detail, expected.first, expected.second, summed[0], summed[1]);
  }
  return failure;
}

std::string state_dict_round_trip(const std::shared_ptr<dist::ProcessGroup>& group, std::string& detail) {
  constexpr int kSaved = 3;
  Run run(group, adam(), 700);
  run.train_reference(0, kSaved);
  run.train_zero(run.ddp, *run.zero, 0, kSaved);
  const int to = group->size() - 1;  // not rank 0, to exercise the gather's root
  run.zero->consolidate_state_dict(to);
  std::string failure;

  // A new ZeRO optimizer (on a copy of the model) loading the plain optimizer's state.
  Mlp copy;
  copy->to(group->device());
  copy->load_state_dict(dist::testing::snapshot(*run.model));
  auto copy_ddp = dist::DistributedDataParallel(copy, group);
  dist::ZeroRedundancyOptimizer loaded(copy_ddp->parameters(), adam(), group);
  loaded.load_state_dict(run.plain->state_dict());

  // On `to`: the consolidated state, as a plain Adam over another copy would continue from it.
  Mlp single;
  single->to(group->device());
  single->load_state_dict(dist::testing::snapshot(*run.model));
  optim::Adam single_opt(single->parameters(), optim::AdamOptions(0.01));
  if (group->rank() == to) {
    optim::OptimizerState consolidated = run.zero->state_dict();
    failure += brisk::dist::testing::compare_optimizer_states(consolidated, run.plain->state_dict(), kTolerance);
    detail = fmt::format("consolidated {} state tensors on rank {}", consolidated.tensors.size(), to);
    single_opt.load_state_dict(consolidated);
  } else {
    try {
      run.zero->state_dict();
      failure += "state_dict() on a rank that did not consolidate returned; ";
    } catch (const Error& e) {
      if (std::string(e.what()).find(fmt::format("rank {}: state_dict() on a rank that did not", group->rank())) ==
          std::string::npos) {
        failure += std::string("unexpected error: ") + e.what() + "; ";
      }
    }
  }

  run.train_reference(kSaved, kSteps);
  run.train_zero(run.ddp, *run.zero, kSaved, kSteps);
  run.train_zero(copy_ddp, loaded, kSaved, kSteps);
  failure += compare_parameters(run, run.model, "continued");
  failure += compare_parameters(run, copy, "loaded");
  if (group->rank() == to) {
    run.train_plain(single, single_opt, kSaved, kSteps, group->device());
    double diff = dist::testing::max_abs_diff(single->named_parameters(), run.reference->named_parameters());
    if (diff >= kTolerance) failure += fmt::format("plain Adam from the consolidated state: max_diff={:.3g}; ", diff);
  }
  return failure;
}

int run_all(const std::string& what, const std::shared_ptr<dist::ProcessGroup>& group) {
  if (what == "mismatch") {
    Mlp model;
    model->to(group->device());
    std::vector<Tensor> params = model->parameters();
    if (group->rank() == 1) params.pop_back();
    dist::ZeroRedundancyOptimizer opt(params, sgd(), group);
    std::printf("mismatch ended without an error\n");
    return 1;
  }
  std::vector<std::string> names{what};
  if (what == "all") names = {"sgd", "adam", "state_dict"};
  int failures = 0;
  for (const std::string& name : names) {
    std::string detail, failure;
    if (name == "sgd") failure = equivalence(group, sgd(), 100, detail);
    else if (name == "adam") failure = equivalence(group, adam(), 400, detail);
    else if (name == "state_dict") failure = state_dict_round_trip(group, detail);
    else failure = "unknown scenario";
    std::printf("%s %s %s%s\n", name.c_str(), failure.empty() ? "ok" : "FAILED", failure.c_str(), detail.c_str());
    std::fflush(stdout);
    failures += failure.empty() ? 0 : 1;
  }
  dist::destroy_process_group();
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return brisk::dist::testing::worker_main(argc, argv, "all|sgd|adam|state_dict|mismatch", run_all);
}
