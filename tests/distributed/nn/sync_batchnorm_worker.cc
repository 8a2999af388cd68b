// One rank of a SyncBatchNorm scenario across processes, started by the launcher:
//
//   launch --nproc-per-node 2 tests/distributed/nn/sync_batchnorm_worker [--device cpu|sim|cuda] all
//
// Every rank builds the same float64 model twice: a reference with plain BatchNorm, trained
// on the whole batch, and a synchronized one (convert_sync_batchnorm, or nn::SyncBatchNorm)
// that sees only this rank's rows. After each step this rank's outputs and input gradients
// must equal the reference's rows, and at the end the parameter gradients summed over the
// ranks, the running statistics and num_batches_tracked must equal the reference's, and so
// must the outputs in eval mode. Prints
// "<scenario> ok max_diff=<x>" or "<scenario> FAILED max_diff=<x>" per scenario; the exit
// status is 0 only when all passed.
//   model:  Linear, BatchNorm1d, ReLU, Linear, BatchNorm1d converted by convert_sync_batchnorm;
//           rank r holds 2 + r rows.
//   image:  nn::SyncBatchNorm (cumulative running averages, momentum None) on [N, C, H, W];
//           3 rows per rank.
//   empty:  nn::SyncBatchNorm without affine parameters, rank 0 holding no rows (with one rank,
//           the whole batch is empty).
//   ddp:    the converted model of "model" inside DistributedDataParallel, 3 SGD steps: every
//           parameter and buffer equals one process's after the same steps on the whole batch
//           (DDP's bucket all-reduces interleaved with SyncBatchNorm's collectives).
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "distributed/ddp/distributed_data_parallel.h"
#include "distributed/distributed.h"
#include "distributed/nn/sync_batchnorm.h"
#include "nn/modules/activation.h"
#include "nn/modules/batchnorm.h"
#include "nn/modules/linear.h"
#include "nn/sequential.h"
#include "optim/sgd.h"
#include "tests/distributed/testing/worker_group.h"
#include "tests/test_device.h"

namespace {

using namespace brisk;
using dist::ProcessGroup;
using test::max_abs_diff;

constexpr int kSteps = 3;

struct Scenario {
  // The model; `sync` makes its BatchNorm layers synchronized over `group`.
  std::function<nn::Sequential(bool sync, const std::shared_ptr<ProcessGroup>& group)> make;
  Shape row;  // the shape of one row of the input
  std::function<int64_t(int rank)> rows;
};

const std::vector<std::string> kNames{"model", "image", "empty", "ddp"};

Scenario scenario(const std::string& name) {
  if (name == "model") {
    return {[](bool sync, const std::shared_ptr<ProcessGroup>& group) {
              nn::Sequential net(nn::Linear(4, 6), nn::BatchNorm1d(6), nn::ReLU(), nn::Linear(6, 3),
                                 nn::BatchNorm1d(3));
              if (sync) nn::convert_sync_batchnorm(*net, group);
              return net;
            },
            {4},
            [](int rank) { return int64_t{2} + rank; }};
  }
  const bool image = name == "image";
  nn::BatchNormOptions options =
      image ? nn::BatchNormOptions(3).momentum(std::nullopt) : nn::BatchNormOptions(3).affine(false).momentum(0.3);
  return {[options](bool sync, const std::shared_ptr<ProcessGroup>& group) {
            return sync ? nn::Sequential(nn::SyncBatchNorm(options, group)) : nn::Sequential(nn::BatchNorm2d(options));
          },
          {3, 2, 2},
          [image](int rank) { return image ? int64_t{3} : int64_t{rank == 0 ? 0 : 1 + rank}; }};
}

double max_diff(const nn::StateDict& state, const nn::StateDict& reference) {
  double worst = 0;
  for (const auto& [key, tensor] : state) {
    worst = std::max(worst, max_abs_diff(tensor.to(kFloat64), reference[key].to(kFloat64)));
  }
  return worst;
}

// The rows of each rank: offsets[r] to offsets[r + 1].
std::vector<int64_t> row_offsets(const Scenario& s, int world) {
  std::vector<int64_t> offsets{0};
  for (int r = 0; r < world; ++r) offsets.push_back(offsets.back() + s.rows(r));
  return offsets;
}

// The reference and the synchronized model, equal, in float64; the latter on `device`.
std::pair<nn::Sequential, nn::Sequential> make_models(const Scenario& s, const std::shared_ptr<ProcessGroup>& group) {
  nn::Sequential reference = s.make(false, nullptr);
  nn::Sequential synced = s.make(true, group);
  reference->to(kFloat64);
  synced->to(kFloat64);
  synced->load_state_dict(reference->state_dict());
  synced->to(group->device());
  return {reference, synced};
}

Tensor batch_of(const Scenario& s, int64_t rows, Generator& gen) {
  Shape shape{rows};
  shape.insert(shape.end(), s.row.begin(), s.row.end());
  return randn(shape, kFloat64, &gen) * 2.0 + 1.0;
}

// DDP averages the ranks' gradients: each rank's loss is scaled by the world size so that the
// average is the gradient of the reference's loss, a mean over the whole batch.
double run_ddp_scenario(const std::shared_ptr<ProcessGroup>& group) {
  const Scenario s = scenario("model");
  const std::vector<int64_t> offsets = row_offsets(s, group->size());
  const int64_t start = offsets[group->rank()], rows = offsets[group->rank() + 1] - start, total = offsets.back();
  auto [reference, synced] = make_models(s, group);
  auto ddp = dist::DistributedDataParallel(synced, group);
  optim::SGD reference_opt(reference->parameters(), optim::SGDOptions(0.1));
  optim::SGD opt(ddp->parameters(), optim::SGDOptions(0.1));
  Generator gen(99);
  for (int step = 0; step < kSteps; ++step) {
    Tensor batch = batch_of(s, total, gen), weights = randn({total, 3}, kFloat64, &gen);
    reference_opt.zero_grad();
    ((reference->forward(batch) * weights).sum() / static_cast<double>(total)).backward();
    reference_opt.step();
    opt.zero_grad();
    Tensor mine = ddp->forward(batch.narrow(0, start, rows).to(group->device()));
    Tensor my_weights = weights.narrow(0, start, rows).to(group->device());
    ((mine * my_weights).sum() * (static_cast<double>(group->size()) / static_cast<double>(total))).backward();
    opt.step();
  }
  return std::max(max_diff(synced->named_parameters(), reference->named_parameters()),
                  max_diff(synced->named_buffers(), reference->named_buffers()));
}

// The largest difference from the reference over every check of the scenario.
double run_scenario(const std::string& name, const std::shared_ptr<ProcessGroup>& group) {
  if (name == "ddp") return run_ddp_scenario(group);
  const Scenario s = scenario(name);
  const Device device = group->device();
  const std::vector<int64_t> offsets = row_offsets(s, group->size());
  const int64_t start = offsets[group->rank()], rows = offsets[group->rank() + 1] - start, total = offsets.back();
  auto [reference, synced] = make_models(s, group);
  Generator gen(1234);
  double worst = 0;
  for (int step = 0; step < kSteps; ++step) {
    Tensor batch = batch_of(s, total, gen);
    Tensor x_ref = batch.clone().requires_grad_();
    Tensor y_ref = reference->forward(x_ref);
    Tensor grad_out = randn(y_ref.sizes(), kFloat64, &gen);
    (y_ref * grad_out).sum().backward();

    Tensor x = batch.narrow(0, start, rows).to(device).detach().requires_grad_();
    Tensor y = synced->forward(x);
    (y * grad_out.narrow(0, start, rows).to(device)).sum().backward();
    worst = std::max(worst, max_abs_diff(y, y_ref.narrow(0, start, rows)));
    worst = std::max(worst, max_abs_diff(x.grad(), x_ref.grad().narrow(0, start, rows)));
  }
  const nn::StateDict ref_params = reference->named_parameters();
  for (const auto& [key, param] : synced->named_parameters()) {
    Tensor grad = param.grad().clone();
    dist::all_reduce(grad, dist::ReduceOp::SUM, group);
    worst = std::max(worst, max_abs_diff(grad, ref_params[key].grad()));
  }
  worst = std::max(worst, max_diff(synced->named_buffers(), reference->named_buffers()));
  // In eval mode each rank normalizes alone with the running statistics.
  reference->eval();
  synced->eval();
  NoGradGuard no_grad;
  Tensor batch = batch_of(s, total, gen);
  return std::max(worst, max_abs_diff(synced->forward(batch.narrow(0, start, rows).to(device)),
                                      reference->forward(batch).narrow(0, start, rows)));
}

int run(const std::string& what, const std::shared_ptr<ProcessGroup>& group) {
  std::vector<std::string> names{what};
  if (what == "all") names = kNames;
  int failures = 0;
  for (const std::string& name : names) {
    const double diff = run_scenario(name, group);
    const bool ok = diff < 1e-10;
    std::printf("%s %s max_diff=%.3g\n", name.c_str(), ok ? "ok" : "FAILED", diff);
    std::fflush(stdout);
    failures += ok ? 0 : 1;
  }
  dist::destroy_process_group();
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return brisk::dist::testing::worker_main(argc, argv, "all|model|image|empty|ddp", run);
}
