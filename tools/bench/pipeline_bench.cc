// The pipeline bubble measured in the profiler's timeline against the schedule checker's
// formula, for GPipe, 1F1B, interleaved 1F1B and ZB-H1 at a few (ranks p, microbatches m,
// chunks v):
//
//   bazel run //tools/bench:pipeline_bench -- --work-ms 20
//
// The ranks are threads of this process, each with its own ProcessGroupGloo over loopback
// TCP (one TCPStore), so the messages take the real send/recv path. Each stage is synthetic:
// its chunk multiplies by a parameter and then occupies its rank for a fixed time, sleeping
// --work-ms / v per microbatch forward and twice that in backward, as a device kernel keeps its
// host thread waiting: half in a hook on the gradient of the chunk's product (the input
// gradient's path), half in a hook on the parameter (its weight gradient), so that ZB-H1's
// split backward runs one half in its input backward and the other in its weight backward (the
// first stage, whose input needs no gradient, runs both in its weight backward). Sleeping rather than spinning keeps p
// ranks from competing for this machine's cores, which would measure the machine, not the schedule.
//
// After a warm-up step, each of --steps steps is profiled alone; measure_bubble
// (pipeline_timeline.h) takes each rank's busy time from its forward and backward events and
// the step from the first pipeline event to the last. The table prints the formula, the
// checker's simulation, and the median measured bubble with its relative difference (the
// issue's bar is within 10%), and the step's length on the cost model and measured: what the
// messages add (a header and then the tensors, each receive through Gloo's threads) shows
// there, most with interleaving, whose v-times more messages sit on the critical path.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "autograd/ops.h"
#include "distributed/gloo/process_group_gloo.h"
#include "distributed/pipeline/pipeline_stage.h"
#include "distributed/pipeline/pipeline_timeline.h"
#include "distributed/store/prefix_store.h"
#include "distributed/store/tcp_store.h"
#include "profiler/profiler.h"

namespace {

using namespace brisk;
using namespace brisk::dist::pipeline;

struct Config {
  ScheduleKind kind;
  int ranks, microbatches, chunks;
};

// A chunk that costs `forward` of sleep, and twice that in its backward: once on the input
// gradient's path, once on the weight's.
StageFunction synthetic_chunk(const Tensor& weight, std::chrono::microseconds forward) {
  auto sleep = [forward](const Tensor&) {
    std::this_thread::sleep_for(forward);
    return Tensor();
  };
  weight.register_hook(sleep);
  return [weight, forward, sleep](const std::vector<Tensor>& in) {
    std::this_thread::sleep_for(forward);
    Tensor scaled = in[0] * weight;
    // On an inner tensor, never a root of the stage's backward: its gradient always passes here.
    scaled.register_hook(sleep);
    return std::vector<Tensor>{scaled * 1.0};
  };
}

Tensor mean_loss(const std::vector<Tensor>& outputs, const std::vector<Tensor>&) { return outputs[0].mean(); }

struct Measured {
  double bubble = 0;   // the largest over ranks
  double step_ms = 0;  // from the first pipeline event to the last
};

// The step with the median bubble among `steps` profiled steps.
Measured measure(const Config& config, double work_ms, int steps) {
  PipelineSchedule schedule = PipelineSchedule::make(config.kind, config.ranks, config.microbatches, config.chunks);
  dist::TCPStoreOptions options;
  options.port = 0;
  options.is_master = true;
  options.timeout = std::chrono::seconds(60);
  auto master = std::make_shared<dist::TCPStore>("127.0.0.1", options);
  options.is_master = false;
  options.port = master->port();
  const auto forward = std::chrono::microseconds(static_cast<int64_t>(work_ms * 1000 / config.chunks));
  std::vector<std::unique_ptr<PipelineStage>> stages(config.ranks);
  std::vector<std::shared_ptr<dist::ProcessGroup>> groups(config.ranks);
  std::vector<Tensor> weights;
  for (int c = 0; c < config.ranks * config.chunks; ++c) weights.push_back(full({1}, 1.0, requires_grad()));
  auto on_ranks = [&](const std::function<void(int)>& body) {
    std::vector<std::thread> threads;
    for (int r = 0; r < config.ranks; ++r) threads.emplace_back(body, r);
    for (auto& t : threads) t.join();
  };
  on_ranks([&](int rank) {
    std::shared_ptr<dist::Store> store = rank == 0 ? std::static_pointer_cast<dist::Store>(master)
                                                   : std::make_shared<dist::TCPStore>("127.0.0.1", options);
    groups[rank] = std::make_shared<dist::ProcessGroupGloo>(std::make_shared<dist::PrefixStore>("bench", store), rank,
                                                            config.ranks, dist::ProcessGroupOptions{}, "127.0.0.1");
    std::vector<StageFunction> chunks;
    for (int c = 0; c < config.chunks; ++c) {
      chunks.push_back(synthetic_chunk(weights[schedule.layout().stage_of(rank, c)], forward));
    }
    stages[rank] = std::make_unique<PipelineStage>(groups[rank], chunks, schedule, mean_loss);
  });
  const Tensor x = ones({4 * config.microbatches, 16});
  auto step = [&] { on_ranks([&](int rank) { stages[rank]->step({x}, {}); }); };
  step();  // warm-up: connections, allocations
  std::vector<Measured> runs;
  for (int s = 0; s < steps; ++s) {
    profiler::Profiler prof;
    prof.start();
    step();
    prof.stop();
    MeasuredBubble measured = measure_bubble(prof.events());
    runs.push_back({measured.bubble_fraction, measured.step_ns / 1e6});
  }
  stages.clear();
  groups.clear();
  std::sort(runs.begin(), runs.end(), [](const Measured& a, const Measured& b) { return a.bubble < b.bubble; });
  return runs[runs.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  double work_ms = 20;
  int steps = 3;
  CLI::App app{"pipeline bubble: formula, checker simulation and profiler timeline"};
  app.add_option("--work-ms", work_ms, "forward time of a rank's whole model share per microbatch (backward: 2x)");
  app.add_option("--steps", steps, "profiled steps per configuration (the median is printed)");
  std::string only;
  app.add_option("--schedule", only, "run only this schedule's rows (gpipe, 1f1b, interleaved, zb-h1)")
      ->check(CLI::IsMember({"gpipe", "1f1b", "interleaved", "zb-h1"}));
  CLI11_PARSE(app, argc, argv);

  const std::vector<Config> configs{
      {ScheduleKind::GPipe, 2, 4, 1},           {ScheduleKind::GPipe, 4, 8, 1},
      {ScheduleKind::OneFOneB, 2, 4, 1},        {ScheduleKind::OneFOneB, 4, 8, 1},
      {ScheduleKind::OneFOneB, 4, 16, 1},       {ScheduleKind::Interleaved1F1B, 2, 4, 2},
      {ScheduleKind::Interleaved1F1B, 4, 8, 2}, {ScheduleKind::Interleaved1F1B, 4, 8, 4},
      {ScheduleKind::ZeroBubbleH1, 2, 4, 1},    {ScheduleKind::ZeroBubbleH1, 4, 8, 1},
      {ScheduleKind::ZeroBubbleH1, 4, 16, 1},
  };
  std::printf("forward %.1f ms per microbatch and rank (backward 2x: zb-h1's input and weight backwards 1x each), "
              "median of %d steps\n",
              work_ms, steps);
  std::printf("%-12s %3s %3s %3s  %8s %10s %9s %9s  %9s %9s  %s\n", "schedule", "p", "m", "v", "formula", "simulated",
              "measured", "rel.diff", "model ms", "step ms", "peak act. / messages");
  for (const Config& config : configs) {
    if (!only.empty() && schedule_name(config.kind) != only) continue;
    PipelineSchedule schedule = PipelineSchedule::make(config.kind, config.ranks, config.microbatches, config.chunks);
    ScheduleReport report = check_schedule(schedule);
    const double formula = formula_bubble(schedule);
    const Measured measured = measure(config, work_ms, steps);
    std::printf("%-12s %3d %3d %3d  %8.4f %10.4f %9.4f %8.1f%%  %9.1f %9.1f  %d / %d\n", schedule.name().c_str(),
                config.ranks, config.microbatches, config.chunks, formula, report.bubble_fraction, measured.bubble,
                100 * (measured.bubble - formula) / formula, report.step_time * work_ms, measured.step_ms,
                report.peak_activations[0], report.messages_per_step);
    std::fflush(stdout);
  }
  return 0;
}
