#include "tests/distributed/join/join_scenarios.h"

#include <algorithm>

#include "distributed/ddp/distributed_data_parallel.h"
#include "distributed/join.h"
#include "optim/sgd.h"
#include "tests/distributed/ddp/test_models.h"

namespace brisk::dist::testing {

namespace {

constexpr int kStepsPerRank[] = {3, 1, 2};
constexpr int64_t kRows = 4;

int steps_of(int rank) { return kStepsPerRank[rank % 3]; }

Batch batch_of(int rank, int iteration, int micro_batch) {
  return make_batch(kRows, {8}, 4, 1000 + 100 * rank + 10 * iteration + micro_batch);
}

// The same weights on every rank, whatever the global generator did.
void initialize(nn::Module& module) {
  Generator gen(7);
  NoGradGuard no_grad;
  for (Tensor p : module.parameters()) native::copy_(p, randn(p.sizes(), {}, &gen) * 0.5);
}

optim::SGD make_sgd(const std::vector<Tensor>& params) {
  return optim::SGD(params, optim::SGDOptions(0.05).momentum(0.9));
}

// `forward(net, x, rank, iteration)` runs the model (a holder or DistributedDataParallel).
template <typename Net, typename Forward>
double run(const std::shared_ptr<ProcessGroup>& group, const DistributedDataParallelOptions& options, int micro_batches,
           const Forward& forward) {
  const int rank = group->rank();
  const int world = group->size();
  Net model;
  initialize(*model);
  model->to(group->device());
  auto ddp = DistributedDataParallel(model, group, options);
  optim::SGD opt = make_sgd(ddp->parameters());
  {
    Join join({*ddp}, JoinOptions().divide_by_initial_world_size(false));
    for (int i = 0; i < steps_of(rank); ++i) {
      opt.zero_grad();
      for (int m = 0; m < micro_batches; ++m) {
        const bool sync = m + 1 == micro_batches;
        ddp->set_require_backward_grad_sync(sync);
        const Batch b = batch_of(rank, i, m).on(group->device());
        nn::functional::cross_entropy(forward(ddp, b.x, rank, i), b.y).backward();
      }
      opt.step();
    }
    join.finish();
  }

  Net reference;
  initialize(*reference);
  optim::SGD reference_opt = make_sgd(reference->parameters());
  int iterations = 0;
  for (int r = 0; r < world; ++r) iterations = std::max(iterations, steps_of(r));
  for (int i = 0; i < iterations; ++i) {
    reference_opt.zero_grad();
    std::vector<int> training;
    for (int r = 0; r < world; ++r) {
      if (steps_of(r) > i) training.push_back(r);
    }
    Tensor loss;
    for (int r : training) {
      for (int m = 0; m < micro_batches; ++m) {
        const Batch b = batch_of(r, i, m);
        Tensor term = nn::functional::cross_entropy(forward(reference, b.x, r, i), b.y);
        loss = loss.defined() ? loss + term : term;
      }
    }
    (loss / static_cast<double>(training.size())).backward();
    reference_opt.step();
  }
  nn::StateDict ours;
  for (const auto& [name, p] : model->named_parameters()) ours.insert(name, native::to(p, kCPU, p.dtype()));
  return max_abs_diff(ours, reference->named_parameters());
}

const auto kPlainForward = [](auto& net, const Tensor& x, int, int) { return net->forward(x); };

DistributedDataParallelOptions small_buckets() {
  return DistributedDataParallelOptions().first_bucket_cap_mb(0.0001).bucket_cap_mb(0.0003);
}

}  // namespace

const std::vector<std::string>& join_scenario_names() {
  static const std::vector<std::string> names{"unused", "rebuild", "bucket_view", "no_sync"};
  return names;
}

double run_join_scenario(const std::string& name, const std::shared_ptr<ProcessGroup>& group) {
  if (name == "unused") {
    return run<BranchNet>(group, small_buckets().find_unused_parameters(true), 1,
                          [](auto& net, const Tensor& x, int rank, int iteration) {
                            return net->forward(x, (rank + iteration) % 2 == 1);
                          });
  }
  if (name == "rebuild") return run<ReversedNet>(group, small_buckets(), 1, kPlainForward);
  if (name == "bucket_view") {
    return run<ReversedNet>(group, small_buckets().gradient_as_bucket_view(true), 1, kPlainForward);
  }
  if (name == "no_sync") return run<ReversedNet>(group, small_buckets(), 2, kPlainForward);
  BRISK_FAIL("join_scenarios: unknown scenario {}", name);
}

}  // namespace brisk::dist::testing
