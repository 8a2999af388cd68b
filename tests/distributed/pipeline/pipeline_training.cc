#include "tests/distributed/pipeline/pipeline_training.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "distributed/pipeline/pipeline_stage.h"
#include "optim/sgd.h"

namespace brisk::dist::pipeline::testing {

namespace {
constexpr double kTolerance = 1e-12;
}  // namespace

std::string train_and_compare(const std::shared_ptr<ProcessGroup>& group, const PipelineCase& c) {
  const int ranks = group->size(), rank = group->rank(), m = c.microbatches;
  ChainOptions options = c.chain;
  options.layers = std::max(options.layers, ranks * c.chunks + 1);
  PipelineSchedule schedule = PipelineSchedule::make(c.kind, ranks, m, c.chunks);
  const StageLayout& layout = schedule.layout();
  LayerChain model(options, group->device()), reference(options);
  PipelineStage stage(group, model.chunks(layout, rank), schedule, chain_loss);
  optim::SGD opt(model.rank_parameters(layout, rank), optim::SGDOptions(0.1).momentum(0.9));
  optim::SGD reference_opt(reference.parameters(), optim::SGDOptions(0.1).momentum(0.9));
  const std::vector<int64_t> rows{2 * m + 1, 3 * m, m + 1};
  std::string failure;
  for (size_t step = 0; step < rows.size(); ++step) {
    auto [x, y] = chain_batch(options, rows[step], 100 + step);
    opt.zero_grad();
    Tensor loss =
        stage.step(stage.has_first_stage() ? std::vector<Tensor>{x.to(group->device())} : std::vector<Tensor>{},
                   stage.has_last_stage() ? std::vector<Tensor>{y.to(group->device())} : std::vector<Tensor>{});
    reference_opt.zero_grad();
    Tensor reference_loss = chain_loss({reference.forward(x)}, {y});
    reference_loss.backward();
    if (stage.has_last_stage() != loss.defined()) {
      failure += fmt::format("step {}: loss defined={} on rank {}; ", step, loss.defined(), rank);
    } else if (loss.defined() && std::abs(loss.item<double>() - reference_loss.item<double>()) > kTolerance) {
      failure +=
          fmt::format("step {}: loss {:.17g} != {:.17g}; ", step, loss.item<double>(), reference_loss.item<double>());
    }
    std::vector<Tensor> grads, reference_grads;
    for (const Tensor& p : model.rank_parameters(layout, rank)) grads.push_back(p.grad());
    for (const Tensor& p : reference.rank_parameters(layout, rank)) reference_grads.push_back(p.grad());
    const double diff = max_difference(grads, reference_grads);
    if (diff > kTolerance) failure += fmt::format("step {}: gradients differ by {:.3g}; ", step, diff);
    opt.step();
    reference_opt.step();
  }
  const double diff = max_difference(model.rank_parameters(layout, rank), reference.rank_parameters(layout, rank));
  if (diff > kTolerance) failure += fmt::format("parameters differ by {:.3g} after the steps; ", diff);
  if (failure.empty()) return failure;
  return fmt::format("{} on {} ranks x {} chunks, {} microbatches, skip={}, rank {}: {}", schedule.name(), ranks,
                     c.chunks, m, options.skip, rank, failure);
}

}  // namespace brisk::dist::pipeline::testing
