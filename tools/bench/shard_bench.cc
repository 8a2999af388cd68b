// Memory and step time of the four data-parallel layouts on CPU over Gloo: DDP, ZeRO-1 (DDP +
// ZeroRedundancyOptimizer), ZeRO-2 (Zero2DataParallel + Zero2Optimizer) and full sharding
// (fully_shard, one unit per Linear), all with Adam on float32 parameters. Run it through the
// launcher, one process per rank (run_shard_bench.sh runs N = 1, 2, 4 and prints the tables):
//
//   launch --nproc-per-node 2 shard_bench --measure memory --mode zero2
//   launch --nproc-per-node 2 shard_bench --measure speed
//
// The model: `layers` Linear(width, width) layers without bias (48 x 1024: 50.3M parameters),
// ReLU between them, mse_loss against a random target. Without bias every parameter, shard,
// bucket and unit is a power of two bytes, which the CPU allocator's size classes (a quarter of
// a power of two; max_memory_allocated counts the class) hold without rounding: a 1024 x 1024
// + 1024 unit's flat shard would take 25% more than it needs. The batch is tiny for memory (4 rows:
// inputs and activations of all layers are 4 * 1024 * 4 bytes each, under 1 MB together) so
// that what a step holds is parameters, gradients, optimizer state and the layout's transient
// buffers.
//
// --measure memory (one mode a process: the allocator's peak is per process): two steps first
// (Adam makes its state in the first), then reset_peak_memory_stats(kCPU), one step (zero_grad,
// forward, backward, step) and max_memory_allocated(kCPU): the most bytes held by tensors at
// once during the step, the largest over ranks. Beside it the formula for float32 Adam (4 bytes
// of parameters, 4 of gradients, K = 8 of optimizer state per parameter; Ψ parameters, N ranks)
// and the ZeRO paper's for mixed-precision Adam, which Brisk's float32 run does not use:
//
//                  float32 Adam (this run)      mixed precision (paper, K = 12)
//   DDP            16Ψ                          16Ψ
//   ZeRO-1         8Ψ + 8Ψ/N                    4Ψ + 12Ψ/N
//   ZeRO-2         4Ψ + 12Ψ/N                   2Ψ + 14Ψ/N
//   full           16Ψ/N                        16Ψ/N
//
// A layout may also hold a unit's gathered parameters or a bucket at a time, so the check is
// measured <= 1.1 * (formula + the largest Linear's bytes) and measured >= 0.9 * formula.
//
// --measure speed: the four layouts side by side in one process (fresh models, the same
// per-rank batch), one step of each in turn so that all see the same machine load; rank 0
// prints each one's median step time, its ratio to DDP's, and the share of its gradient
// communication (all-reduce, reduce-scatter) hidden behind backward: dist::CommOverlap of
// DDP's and ZeRO-2's reducers, and of fully_shard's units (dist::fsdp_comm_overlap).
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "distributed/ddp/distributed_data_parallel.h"
#include "distributed/distributed.h"
#include "distributed/fsdp/fully_shard.h"
#include "distributed/zero/zero_redundancy_optimizer.h"
#include "distributed/zero2/zero2_data_parallel.h"
#include "nn/functional.h"
#include "nn/module_list.h"
#include "nn/modules/linear.h"
#include "optim/adam.h"
#include "tensor/memory.h"
#include "tensor/native/ops.h"
#include "tools/bench/timing.h"

using namespace brisk;
using namespace brisk::dist;
using bench::median;
using Clock = std::chrono::steady_clock;

namespace {

struct Config {
  std::string measure = "memory";
  std::string mode = "ddp";
  int64_t width = 1024;
  int layers = 48;
  int64_t batch = 4;
  int steps = 10;
  int warmup = 2;
  double bucket_cap_mb = 4;
  // zero_grad(set_to_none): true frees the gradients between steps, as PyTorch's default.
  bool set_to_none = true;
};

const std::vector<std::string> kModes = {"ddp", "zero1", "zero2", "full"};

struct WideStackImpl : nn::Module {
  WideStackImpl(int64_t width, int depth) {
    layers = register_module("layers", nn::ModuleList());
    for (int i = 0; i < depth; ++i) layers->push_back(nn::Linear(nn::LinearOptions(width, width).bias(false)));
  }
  Tensor forward(const Tensor& input) override {
    Tensor x = input;
    for (size_t i = 0; i < layers->size(); ++i) {
      // A module call, so that fully_shard's hooks run.
      nn::LinearImpl& layer = layers->at<nn::LinearImpl>(i);
      x = nn::forward_naming_module(layer, [&] { return layer.forward(x); });
      if (i + 1 < layers->size()) x = nn::functional::relu(x);
    }
    return x;
  }
  nn::ModuleList layers;
};
BRISK_MODULE(WideStack);

WideStack make_model(const Config& config) { return WideStack(config.width, config.layers); }

std::unique_ptr<optim::Optimizer> adam(std::vector<Tensor> params) {
  return std::make_unique<optim::Adam>(std::move(params), optim::AdamOptions(1e-4));
}

// One layout of one model: a training step and, where the layout has one, the overlap of its
// last backward's gradient communication.
struct Layout {
  std::function<void(const Tensor&, const Tensor&)> step;
  std::function<CommOverlap()> overlap;
  // max_memory_allocated(kCPU) when the last step's backward had ended (before the optimizer).
  std::shared_ptr<size_t> backward_peak = std::make_shared<size_t>(0);
};

Layout make_layout(const std::string& mode, const Config& config, const std::shared_ptr<ProcessGroup>& group) {
  namespace F = nn::functional;
  auto model = make_model(config);
  Layout layout;
  const bool set_to_none = config.set_to_none;
  std::shared_ptr<size_t> peak = layout.backward_peak;
  if (mode == "ddp" || mode == "zero1") {
    auto ddp = DistributedDataParallel(
        model, group,
        DistributedDataParallelOptions().bucket_cap_mb(config.bucket_cap_mb).gradient_as_bucket_view(true));
    std::shared_ptr<optim::Optimizer> plain;
    std::shared_ptr<ZeroRedundancyOptimizer> zero;
    if (mode == "ddp") {
      plain = adam(ddp->parameters());
    } else {
      zero = std::make_shared<ZeroRedundancyOptimizer>(ddp->parameters(), adam, group);
    }
    layout.step = [ddp, plain, zero, set_to_none, peak](const Tensor& x, const Tensor& y) {
      plain ? plain->zero_grad(set_to_none) : zero->zero_grad(set_to_none);
      F::mse_loss(ddp->forward(x), y).backward();
      *peak = max_memory_allocated(kCPU);
      plain ? plain->step() : zero->step();
    };
    layout.overlap = [ddp] { return ddp->comm_overlap(); };
  } else if (mode == "zero2") {
    auto zero2 = Zero2DataParallel(model, group, Zero2Options().bucket_cap_mb(config.bucket_cap_mb));
    auto opt = std::make_shared<Zero2Optimizer>(*zero2, adam);
    layout.step = [zero2, opt, set_to_none, peak](const Tensor& x, const Tensor& y) {
      opt->zero_grad(set_to_none);
      F::mse_loss(zero2->forward(x), y).backward();
      *peak = max_memory_allocated(kCPU);
      opt->step();
    };
    layout.overlap = [zero2] { return zero2->comm_overlap(); };
  } else {
    for (const auto& layer : model->layers->children()) fully_shard(*layer, FullyShardOptions().group(group));
    fully_shard(*model, FullyShardOptions().group(group));
    std::shared_ptr<optim::Optimizer> opt = adam(model->parameters());
    layout.step = [model, opt, set_to_none, peak](const Tensor& x, const Tensor& y) {
      opt->zero_grad(set_to_none);
      F::mse_loss(model(x), y).backward();
      *peak = max_memory_allocated(kCPU);
      opt->step();
    };
    layout.overlap = [model] { return fsdp_comm_overlap(*model); };
  }
  return layout;
}

// The largest value of `value` over the ranks.
double max_over_ranks(ProcessGroup& group, double value) {
  Tensor t = native::full({1}, value, TensorOptions(kFloat64));
  group.all_reduce(t, dist::ReduceOp::MAX)->wait();
  return t.item<double>();
}

void measure_memory(const Config& config, const std::shared_ptr<ProcessGroup>& group) {
  Generator gen(1234 + group->rank());
  Tensor x = randn({config.batch, config.width}, {}, &gen);
  Tensor y = randn({config.batch, config.width}, {}, &gen);
  Layout layout = make_layout(config.mode, config, group);
  for (int s = 0; s < config.warmup; ++s) layout.step(x, y);
  group->barrier()->wait();
  const double resident = max_over_ranks(*group, static_cast<double>(memory_allocated(kCPU)));
  reset_peak_memory_stats(kCPU);
  layout.step(x, y);
  const double peak = max_over_ranks(*group, static_cast<double>(max_memory_allocated(kCPU)));
  const double backward_peak = max_over_ranks(*group, static_cast<double>(*layout.backward_peak));
  if (group->rank() != 0) return;

  const double psi = static_cast<double>(config.layers) * config.width * config.width;
  const double unit = 4.0 * config.width * config.width;
  const double n = group->size();
  const std::string& m = config.mode;
  const double formula = m == "ddp"     ? 16 * psi
                         : m == "zero1" ? 8 * psi + 8 * psi / n
                         : m == "zero2" ? 4 * psi + 12 * psi / n
                                        : 16 * psi / n;
  const double paper = m == "ddp"     ? 16 * psi
                       : m == "zero1" ? 4 * psi + 12 * psi / n
                       : m == "zero2" ? 2 * psi + 14 * psi / n
                                      : 16 * psi / n;
  const bool ok = peak <= 1.1 * (formula + unit) && peak >= 0.9 * formula;
  std::printf(
      "shard_bench memory: mode %s, %d ranks, %.2fM parameters (%d x Linear(%lld, %lld, bias=false), largest %.1f MB), "
      "batch %lld, float32 Adam\n",
      m.c_str(), group->size(), psi / 1e6, config.layers, static_cast<long long>(config.width),
      static_cast<long long>(config.width), unit / 1e6, static_cast<long long>(config.batch));
  std::printf("  held between steps %9.1f MB\n", resident / 1e6);
  std::printf("  peak during a step %9.1f MB  (until the end of backward: %.1f MB)\n", peak / 1e6, backward_peak / 1e6);
  std::printf("  formula (float32)  %9.1f MB   peak / (formula + largest Linear) = %.3f   %s\n", formula / 1e6,
              peak / (formula + unit), ok ? "within 10%" : "NOT within 10%");
  std::printf("  paper (mixed, K=12)%9.1f MB   (reference; not this run's precision)\n", paper / 1e6);
}

void measure_speed(const Config& config, const std::shared_ptr<ProcessGroup>& group) {
  Generator gen(1234 + group->rank());
  Tensor x = randn({config.batch, config.width}, {}, &gen);
  Tensor y = randn({config.batch, config.width}, {}, &gen);
  std::vector<Layout> layouts;
  for (const std::string& mode : kModes) layouts.push_back(make_layout(mode, config, group));
  std::vector<std::vector<double>> step_ms(kModes.size()), hidden(kModes.size());
  std::vector<CommOverlap> total(kModes.size());
  group->barrier()->wait();
  for (int s = 0; s < config.warmup + config.steps; ++s) {
    for (size_t i = 0; i < layouts.size(); ++i) {
      auto start = Clock::now();
      layouts[i].step(x, y);
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      if (s < config.warmup) continue;
      CommOverlap overlap = layouts[i].overlap();
      step_ms[i].push_back(ms);
      hidden[i].push_back(100.0 * overlap.hidden_fraction());
      total[i] += overlap;
    }
  }
  group->barrier()->wait();
  if (group->rank() != 0) return;
  const double psi = static_cast<double>(config.layers) * config.width * config.width;
  std::printf("shard_bench speed: %d ranks, %.2fM parameters (%d x Linear(%lld, %lld, bias=false)), batch %lld per "
              "rank, %d steps, "
              "bucket cap %.3g MB\n",
              group->size(), psi / 1e6, config.layers, static_cast<long long>(config.width),
              static_cast<long long>(config.width), static_cast<long long>(config.batch), config.steps,
              config.bucket_cap_mb);
  const double ddp = median(step_ms[0]);
  for (size_t i = 0; i < kModes.size(); ++i) {
    const double t = median(step_ms[i]);
    std::printf(
        "  %-6s step %8.2f ms  x%.2f of DDP  communication %8.2f ms/step  hidden %5.1f %%  (median step %5.1f %%)\n",
        kModes[i].c_str(), t, t / ddp, total[i].communication_ms / config.steps, 100.0 * total[i].hidden_fraction(),
        median(hidden[i]));
  }
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  CLI::App app{"DDP, ZeRO-1, ZeRO-2 and full sharding: peak memory per rank and step time (run through the launcher)"};
  app.add_option("--measure", config.measure, "memory (one --mode) or speed (all four)")
      ->check(CLI::IsMember({"memory", "speed"}));
  app.add_option("--mode", config.mode, "ddp, zero1, zero2 or full (--measure memory)")->check(CLI::IsMember(kModes));
  app.add_option("--width", config.width, "features of every Linear layer");
  app.add_option("--layers", config.layers, "Linear layers");
  app.add_option("--batch", config.batch, "rows per rank and step");
  app.add_option("--steps", config.steps, "measured steps (--measure speed)");
  app.add_option("--warmup", config.warmup, "steps before measuring");
  app.add_option("--bucket-cap-mb", config.bucket_cap_mb, "DDP's and ZeRO-2's bucket cap");
  app.add_option("--set-to-none", config.set_to_none, "zero_grad(set_to_none): 1 frees the gradients between steps");
  CLI11_PARSE(app, argc, argv);
  try {
    init_process_group("gloo");
    if (config.measure == "memory") {
      measure_memory(config, default_group());
    } else {
      measure_speed(config, default_group());
    }
    destroy_process_group();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "shard_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
