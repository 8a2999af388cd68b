// DistributedDataParallel on CPU over Gloo (or MPI): the step time of a model with and without
// DDP (same per-rank batch; the two alternate step by step so both see the same machine load),
// and how much of the gradient all-reduce time backward hides. Run it through the launcher, one
// process per rank, or under mpirun with --backend mpi (see run_ddp_bench.sh):
//
//   launch --nproc-per-node 2 ddp_bench --model mlp
//   mpirun -np 2 ddp_bench --model mlp --backend mpi
//
// Per DDP step, the reducer's timeline (distributed/ddp/reducer.h) has every bucket's launch
// (handed to the comm hook) and completion (Work::completed_at, stamped by the group as it
// finishes) and the end of autograd's backward; ddp->comm_overlap() splits the union of the
// buckets' spans at that end into hidden and exposed communication. Rank 0 prints medians over
// the measured steps, hidden = sum hidden / sum communication over all steps, and the median
// step's hidden share.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>

#include "autograd/ops.h"
#include "distributed/ddp/distributed_data_parallel.h"
#include "distributed/distributed.h"
#include "models/lenet.h"
#include "models/mlp.h"
#include "nn/functional.h"
#include "optim/sgd.h"
#include "tensor/native/ops.h"
#include "tools/bench/timing.h"

using namespace brisk;
using namespace brisk::dist;
using bench::median;
using bench::ms_since;
using Clock = std::chrono::steady_clock;

namespace {

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

struct Config {
  std::string model = "mlp";
  int64_t batch = 64;
  int steps = 20;
  int warmup = 3;
  double bucket_cap_mb = 25;
  double first_bucket_cap_mb = 1;
  bool gradient_as_bucket_view = true;
  // 784-256-1024x10-10, 9.92M parameters: narrow input layers (their gradients are ready last)
  // and equal 1024-wide layers, so that backward can hide the all-reduce (docs/ddp.md, "The MLP").
  std::vector<int64_t> hidden{256, 1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024};
};

// make_model() makes a fresh model each call: one for DDP, one stepped without.
template <typename MakeModel>
void measure(const Config& config, const std::shared_ptr<ProcessGroup>& group, const MakeModel& make_model) {
  const bool lead = group->rank() == 0;
  auto model = make_model();
  int64_t params = 0;
  for (const Tensor& p : model->parameters()) params += p.numel();
  Generator gen(1234 + group->rank());
  Tensor images = randn({config.batch, 1, 28, 28}, {}, &gen);
  Tensor labels = native::argmax(randn({config.batch, 10}, {}, &gen), 1, false);

  // The same model without DDP, stepped alternately with the DDP one so that both see the
  // same machine load.
  auto plain = make_model();
  optim::SGD plain_opt(plain->parameters(), optim::SGDOptions(0.01));

  auto options = DistributedDataParallelOptions()
                     .bucket_cap_mb(config.bucket_cap_mb)
                     .first_bucket_cap_mb(config.first_bucket_cap_mb)
                     .gradient_as_bucket_view(config.gradient_as_bucket_view);
  auto ddp = DistributedDataParallel(model, group, options);
  optim::SGD opt(ddp->parameters(), optim::SGDOptions(0.01));
  std::vector<double> local_ms, ddp_ms, backward_ms, comm_ms, exposed_ms, hidden_share;
  std::vector<std::vector<double>> launch_before_end, done_after_end;  // per bucket
  CommOverlap total;
  group->barrier()->wait();
  for (int s = 0; s < config.warmup + config.steps; ++s) {
    auto local_start = Clock::now();
    plain_opt.zero_grad();
    nn::functional::cross_entropy(plain->forward(images), labels).backward();
    plain_opt.step();
    auto start = Clock::now();
    opt.zero_grad();
    nn::functional::cross_entropy(ddp->forward(images), labels).backward();
    opt.step();
    auto end = Clock::now();
    if (s < config.warmup) continue;
    const ReducerTimeline& timeline = ddp->reducer().timeline();
    local_ms.push_back(ms(start - local_start));
    ddp_ms.push_back(ms(end - start));
    backward_ms.push_back(ms(timeline.backward_end - timeline.first_gradient));
    exposed_ms.push_back(ms(timeline.reduced - timeline.backward_end));
    CommOverlap overlap = ddp->comm_overlap();
    comm_ms.push_back(overlap.communication_ms);
    hidden_share.push_back(100.0 * overlap.hidden_fraction());
    total += overlap;
    launch_before_end.resize(timeline.bucket_launched.size());
    done_after_end.resize(timeline.bucket_launched.size());
    for (size_t i = 0; i < timeline.bucket_launched.size(); ++i) {
      launch_before_end[i].push_back(ms(timeline.backward_end - timeline.bucket_launched[i]));
      done_after_end[i].push_back(ms(timeline.bucket_reduced[i] - timeline.backward_end));
    }
  }
  ddp->join();

  // The same all-reduces with nothing to overlap: communication alone (one buffer per bucket).
  std::vector<Tensor> buffers;
  for (const auto& bucket : ddp->reducer().bucket_indices()) {
    int64_t numel = 0;
    for (size_t index : bucket) numel += ddp->reducer().parameters()[index].numel();
    buffers.push_back(native::zeros({numel}));
  }
  std::vector<double> alone_ms;
  group->barrier()->wait();
  for (int s = 0; s < config.warmup + config.steps; ++s) {
    auto start = Clock::now();
    std::vector<std::shared_ptr<Work>> works;
    for (Tensor& b : buffers) works.push_back(group->all_reduce(b, dist::ReduceOp::AVG));
    for (auto& w : works) w->wait();
    if (s >= config.warmup) alone_ms.push_back(ms_since(start));
  }
  group->barrier()->wait();

  if (lead) {
    double local = median(local_ms), distributed = median(ddp_ms);
    std::printf("model %s: %.2fM parameters, %zu buckets (cap %.3g MB, first %.3g MB), batch %lld per rank, %d ranks, "
                "%d steps, gradient_as_bucket_view %d\n",
                config.model.c_str(), params / 1e6, buffers.size(), config.bucket_cap_mb, config.first_bucket_cap_mb,
                static_cast<long long>(config.batch), group->size(), config.steps, config.gradient_as_bucket_view);
    std::printf("  step without DDP        %8.2f ms\n", local);
    std::printf("  step with DDP           %8.2f ms  (%+.1f%%)\n", distributed, 100.0 * (distributed - local) / local);
    std::printf("  first gradient to end of backward %8.2f ms\n", median(backward_ms));
    std::printf("  all-reduce during step  %8.2f ms  (alone, nothing to overlap: %.2f ms)\n", median(comm_ms),
                median(alone_ms));
    std::printf("  waited after backward   %8.2f ms\n", median(exposed_ms));
    std::printf("  all-reduce hidden       %8.1f %%\n", 100.0 * total.hidden_fraction());
    // A few steps whose all-reduce the scheduler stalls dominate the sum above on a loaded machine.
    std::printf("  hidden in median step   %8.1f %%\n", median(hidden_share));
    for (size_t i = 0; i < buffers.size(); ++i) {
      std::printf("  bucket %zu: %6.2f MB, launched %7.2f ms before the end of backward, done %+8.2f ms after it\n", i,
                  buffers[i].numel() * 4 / 1e6, median(launch_before_end[i]), median(done_after_end[i]));
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  CLI::App app{"DistributedDataParallel step time and communication overlap (run through the launcher)"};
  app.add_option("--model", config.model, "mlp or lenet")->check(CLI::IsMember({"mlp", "lenet"}));
  app.add_option("--batch", config.batch, "examples per rank and step");
  app.add_option("--steps", config.steps, "measured steps");
  app.add_option("--warmup", config.warmup, "steps before measuring");
  app.add_option("--bucket-cap-mb", config.bucket_cap_mb, "DDP bucket cap");
  app.add_option("--first-bucket-cap-mb", config.first_bucket_cap_mb, "DDP first bucket cap");
  app.add_option("--hidden", config.hidden, "MLP hidden widths");
  app.add_option("--gradient-as-bucket-view", config.gradient_as_bucket_view,
                 "1: .grad are views of the bucket buffers (no copy back after the all-reduce); 0: copies");
  std::string backend = "gloo";
  app.add_option("--backend", backend, "gloo (through the launcher) or mpi (under mpirun)")
      ->check(CLI::IsMember({"gloo", "mpi"}));
  CLI11_PARSE(app, argc, argv);
  try {
    init_process_group(backend);
    if (config.model == "mlp") {
      measure(config, default_group(), [&] { return models::MLP(models::MLPOptions(784, 10).hidden(config.hidden)); });
    } else {
      measure(config, default_group(), [] { return models::LeNet5(); });
    }
    destroy_process_group();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ddp_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
