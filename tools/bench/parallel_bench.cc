// GPT training throughput and peak memory per rank under Brisk's parallel layouts on CPU over
// Gloo, one process per rank (run it through the launcher); parallel_bench_torch.py runs the
// same rows on PyTorch and run_parallel_bench.sh prints both side by side:
//
//   launch --nproc-per-node 2 parallel_bench --model mini --layout pp --schedule 1f1b
//   launch --nproc-per-node 8 parallel_bench --model mini --layout mesh --dp 2 --tp 2 --pp 2 --schedule 1f1b
//
// Every layout trains on the same global batch (--batch sequences of --seq bytes, random
// tokens, float32, AdamW lr 1e-4) for --warmup + --steps steps; the row is the largest over
// ranks of each rank's median step time, as tokens per second of the global batch:
//   single  models::GPT in one process.
//   dp      models::GPT under DistributedDataParallel, the batch split over the ranks.
//   tp      n_layer tensor-parallel transformer blocks only (no embeddings, no output head) on
//           hidden states [batch, seq, n_embd], mse loss against a random target: query, key,
//           value and mlp.fc are ColumnParallelLinear, attn.proj and mlp.proj RowParallelLinear,
//           the LayerNorms replicated. At one rank it is the same blocks unsplit (the baseline
//           of the tp row). The whole tensor-parallel GPT is the mesh layout's.
//   pp      GPT blocks cut over ranks * v stages (v = 2 for interleaved, else 1), --microbatches
//           microbatches, PipelineStage with the schedule; the first stage holds the
//           embeddings, the last the final LayerNorm and an output head of its own (untied: the
//           token embedding sits on another rank).
//   mesh    the composed GPT, models::ParallelGPT, on --dp x --tp x --pp ranks, as the training
//           program trains it (parallel_gpt_layout.h): tensor-parallel blocks, a vocabulary-
//           parallel tied embedding and head, the pipeline's --schedule over --microbatches
//           when --pp > 1 (the whole share in one pass at --pp 1), the gradients averaged over
//           dp after the step. It loads the single layout's weights: its loss_first equals
//           single's up to float32 rounding.
// The bubble (pp, and mesh with --pp > 1) is measured on the profiler's events of
// --profiled-steps further steps (the timed ones run without the profiler), gathered from the
// ranks of each pipeline into one timeline (measure_bubble, pipeline_timeline.h: (step - busy)
// / busy of the busiest-idle rank; the median step's), beside the formula; with several
// pipelines (dp or tp > 1) the worst pipeline's. Idle includes waiting on messages.
// Memory: the peak resident set size of each process (getrusage's ru_maxrss, which includes
// the program and its libraries: rss_base is the peak before the model was made) and the peak
// bytes held by tensors (max_memory_allocated(kCPU)), each the largest over ranks.
// Loss: loss_first and loss_last are the global batch's loss in the first step (a warm-up one
// when --warmup > 0) and in the last timed one (the mean over the ranks holding one), to check
// that layouts train the same model.
// Output: one line of key=value fields per run, "parallel_bench side=brisk ...". With
// --key-averages N, then rank 0's ops and autograd nodes over N more profiled steps, per step
// by self time ("key_average <name> <calls> <self ms> <total ms>", as parallel_bench_torch.py
// prints torch.profiler's; docs/training.md, "Where the GPT's CPU step goes").
#include <CLI/CLI.hpp>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "distributed/ddp/distributed_data_parallel.h"
#include "distributed/distributed.h"
#include "distributed/host_value_collectives.h"
#include "distributed/pipeline/pipeline_stage.h"
#include "distributed/pipeline/pipeline_timeline.h"
#include "distributed/tensor_parallel/column_parallel_linear.h"
#include "distributed/tensor_parallel/row_parallel_linear.h"
#include "models/gpt.h"
#include "nn/attention/scaled_dot_product_attention.h"
#include "nn/functional.h"
#include "optim/adam.h"
#include "profiler/profiler.h"
#include "tensor/memory.h"
#include "tensor/native/ops.h"
#include "tensor/parallel.h"
#include "tools/bench/parallel_gpt_layout.h"
#include "tools/bench/timing.h"

using namespace brisk;
using namespace brisk::dist;
namespace F = nn::functional;
namespace pp = brisk::dist::pipeline;

namespace {

struct Config {
  std::string model = "mini";
  std::string layout = "single";
  std::string schedule = "1f1b";
  int64_t batch = 8, seq = 64;
  int microbatches = 4, warmup = 1, steps = 4, profiled_steps = 3, threads = 1;
  int key_average_steps = 0;  // --key-averages: steps profiled for the op table, after the timed ones
  bench::MeshOptions mesh;  // --dp, --tp, --pp; its schedule and microbatches are the above
};

int64_t peak_rss_kb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// A GPT block whose linear layers are split over `group` (see the header): the heads split
// with query, key and value, each rank attending over its own.
struct TPBlockImpl : nn::Module {
  TPBlockImpl(const models::GPTConfig& config, const GroupPtr& group) : head_dim(config.n_embd() / config.n_head()) {
    const int64_t C = config.n_embd();
    ln_1 = register_module("ln_1", nn::LayerNorm(nn::LayerNormOptions({C})));
    query = register_module("query", tp::ColumnParallelLinear(tp::ColumnParallelLinearOptions(C, C), group));
    key = register_module("key", tp::ColumnParallelLinear(tp::ColumnParallelLinearOptions(C, C), group));
    value = register_module("value", tp::ColumnParallelLinear(tp::ColumnParallelLinearOptions(C, C), group));
    proj = register_module("proj", tp::RowParallelLinear(tp::RowParallelLinearOptions(C, C), group));
    ln_2 = register_module("ln_2", nn::LayerNorm(nn::LayerNormOptions({C})));
    fc = register_module("fc", tp::ColumnParallelLinear(tp::ColumnParallelLinearOptions(C, 4 * C), group));
    mlp_proj = register_module("mlp_proj", tp::RowParallelLinear(tp::RowParallelLinearOptions(4 * C, C), group));
  }
  Tensor forward(const Tensor& x) override {
    const int64_t B = x.size(0), T = x.size(1);
    auto heads = [&](const Tensor& t) { return t.view({B, T, t.size(2) / head_dim, head_dim}).transpose(1, 2); };
    Tensor h = ln_1(x);
    Tensor y = F::scaled_dot_product_attention(heads(query(h)), heads(key(h)), heads(value(h)), /*is_causal=*/true);
    y = y.transpose(1, 2).contiguous();
    Tensor a = x + proj(y.view({B, T, y.size(2) * head_dim}));
    return a + mlp_proj(F::gelu(fc(ln_2(a)), "tanh"));
  }
  int64_t head_dim;
  nn::LayerNorm ln_1{nullptr}, ln_2{nullptr};
  tp::ColumnParallelLinear query{nullptr}, key{nullptr}, value{nullptr}, fc{nullptr};
  tp::RowParallelLinear proj{nullptr}, mlp_proj{nullptr};
};
BRISK_MODULE(TPBlock);

// One pipeline stage's modules: blocks [first, last) of the GPT, with the embeddings on stage 0
// and the final LayerNorm and head on the last stage.
struct StageModelImpl : nn::Module {
  StageModelImpl(const models::GPTConfig& config, int64_t first, int64_t last, bool embeds, bool heads) {
    const int64_t C = config.n_embd();
    if (embeds) {
      wte = register_module("wte", nn::Embedding(config.vocab_size(), C));
      wpe = register_module("wpe", nn::Embedding(config.block_size(), C));
    }
    blocks = register_module("blocks", nn::ModuleList());
    for (int64_t i = first; i < last; ++i) blocks->push_back(models::GPTBlock(config));
    if (heads) {
      ln_f = register_module("ln_f", nn::LayerNorm(nn::LayerNormOptions({C})));
      head = register_parameter("head", randn({config.vocab_size(), C}) * 0.02);
    }
  }
  Tensor forward(const Tensor& input) override {
    Tensor x = input;
    if (wte) x = wte(input) + wpe(arange(0, input.size(1), TensorOptions(kInt64)));
    for (size_t i = 0; i < blocks->size(); ++i) x = blocks->at<models::GPTBlockImpl>(i).forward(x);
    return ln_f ? F::linear(ln_f(x), head) : x;
  }
  nn::Embedding wte{nullptr}, wpe{nullptr};
  nn::ModuleList blocks;
  nn::LayerNorm ln_f{nullptr};
  Tensor head;
};
BRISK_MODULE(StageModel);

// The bubble of one profiled step over every rank's pipeline events: each rank sends its
// events' (start, end, computation) to all, and measure_bubble reads them as one timeline.
double gathered_bubble(ProcessGroup& group, const std::vector<profiler::Event>& events) {
  std::vector<int64_t> mine;
  for (const profiler::Event& e : events) {
    if (!pp::is_pipeline_event(e)) continue;
    const bool computation = e.name.rfind("pipeline forward ", 0) == 0 || e.name.rfind("pipeline backward ", 0) == 0;
    mine.insert(mine.end(), {e.start_ns, e.end_ns, computation ? 1 : 0});
  }
  const int64_t most = all_reduce_values(group, {static_cast<int64_t>(mine.size())}, dist::ReduceOp::MAX)[0];
  mine.resize(most, -1);  // padding rows: computation -1
  const std::vector<int64_t> all = all_gather_values(group, mine);
  std::vector<profiler::Event> timeline;
  for (int64_t r = 0; r < group.size(); ++r) {
    for (int64_t j = 0; j < most; j += 3) {
      const int64_t* row = &all[r * most + j];
      if (row[2] < 0) continue;
      profiler::Event e;
      e.name = row[2] == 1 ? "pipeline forward (gathered)" : "pipeline message (gathered)";
      e.start_ns = row[0];
      e.end_ns = row[1];
      e.args = {{"rank", std::to_string(r)}};
      timeline.push_back(e);
    }
  }
  return pp::measure_bubble(timeline).bubble_fraction;
}

// single and dp: the whole GPT, dp under DDP with each rank's rows of the batch.
bench::LayoutRun data_parallel_layout(const models::GPTConfig& gpt, const Tensor& tokens, const Tensor& targets,
                                      const GroupPtr& world, bool ddp) {
  models::GPT model(gpt);
  const int rank = ddp ? world->rank() : 0, n = ddp ? world->size() : 1;
  const int64_t rows = tokens.size(0) / n;
  BRISK_CHECK(rows * n == tokens.size(0), "--batch {} does not split over {} ranks", tokens.size(0), n);
  Tensor x = tokens.narrow(0, rank * rows, rows).contiguous(), y = targets.narrow(0, rank * rows, rows).contiguous();
  bench::LayoutRun run;
  run.name = ddp ? "dp" : "single";
  if (!ddp) {
    run.optimizer = std::make_shared<optim::AdamW>(model->parameters(), optim::AdamWOptions(1e-4));
    run.step = [model, x, y]() mutable {
      Tensor loss = models::gpt_loss(model(x), y);
      loss.backward();
      return loss;
    };
  } else {
    auto module = DistributedDataParallel(model, world);
    run.optimizer = std::make_shared<optim::AdamW>(module->parameters(), optim::AdamWOptions(1e-4));
    run.step = [module, x, y]() mutable {
      Tensor loss = models::gpt_loss(module->forward(x), y);
      loss.backward();
      return loss;
    };
  }
  return run;
}

// tp: the blocks alone, split over the world (see the header).
bench::LayoutRun tp_blocks_layout(const models::GPTConfig& gpt, const Config& config, Generator& data_gen,
                                  const GroupPtr& world) {
  auto blocks = std::make_shared<std::vector<TPBlock>>();
  std::vector<Tensor> params;
  for (int64_t i = 0; i < gpt.n_layer(); ++i) {
    blocks->push_back(TPBlock(gpt, world));
    for (const Tensor& p : blocks->back()->parameters()) params.push_back(p);
  }
  Tensor x = randn({config.batch, config.seq, gpt.n_embd()}, {}, &data_gen);
  Tensor y = randn({config.batch, config.seq, gpt.n_embd()}, {}, &data_gen);
  bench::LayoutRun run;
  run.name = "tp";
  run.optimizer = std::make_shared<optim::AdamW>(params, optim::AdamWOptions(1e-4));
  run.step = [blocks, x, y] {
    Tensor h = x;
    for (auto& block : *blocks) h = block(h);
    Tensor loss = F::mse_loss(h, y);
    loss.backward();
    return loss;
  };
  return run;
}

// pp: this rank's StageModels under PipelineStage over the world (see the header).
bench::LayoutRun pipeline_layout(const models::GPTConfig& gpt, const Config& config, const Tensor& tokens,
                                 const Tensor& targets, const GroupPtr& world) {
  const int v = config.schedule == "interleaved" ? 2 : 1, n = world->size();
  const pp::PipelineSchedule schedule =
      pp::PipelineSchedule::make(pp::parse_schedule(config.schedule), n, config.microbatches, v);
  const int stages = n * v;
  // Blocks split as evenly as possible, the first stages taking one more.
  auto first_block = [&](int stage) {
    const int64_t base = gpt.n_layer() / stages, extra = gpt.n_layer() % stages;
    return stage * base + std::min<int64_t>(stage, extra);
  };
  std::vector<pp::StageFunction> chunks;
  std::vector<Tensor> params;
  auto models = std::make_shared<std::vector<StageModel>>();
  for (int c = 0; c < v; ++c) {
    const int s = schedule.layout().stage_of(world->rank(), c);
    models->push_back(StageModel(gpt, first_block(s), first_block(s + 1), s == 0, s == stages - 1));
    for (const Tensor& p : models->back()->parameters()) params.push_back(p);
    StageModel model = models->back();
    chunks.push_back([model](const std::vector<Tensor>& in) mutable { return std::vector<Tensor>{model(in[0])}; });
  }
  auto stage = std::make_shared<pp::PipelineStage>(
      world, chunks, schedule,
      [](const std::vector<Tensor>& out, const std::vector<Tensor>& y) { return models::gpt_loss(out[0], y[0]); });
  const std::vector<Tensor> in = stage->has_first_stage() ? std::vector<Tensor>{tokens} : std::vector<Tensor>{};
  const std::vector<Tensor> out = stage->has_last_stage() ? std::vector<Tensor>{targets} : std::vector<Tensor>{};
  bench::LayoutRun run;
  run.name = "pp_" + config.schedule;
  run.optimizer = std::make_shared<optim::AdamW>(params, optim::AdamWOptions(1e-4));
  run.step = [stage, in, out, models] { return stage->step(in, out); };
  run.microbatches = config.microbatches;
  run.pipeline = world;
  run.bubble_formula = pp::formula_bubble(schedule);
  return run;
}

// Rank 0's events of `steps` steps grouped by name, per step, by self time (descending):
//   key_average <name> <calls> <self ms> <total ms>
// the lines of parallel_bench_torch.py --key-averages, to set side by side.
void print_key_averages(const std::vector<profiler::Event>& events, int steps) {
  struct Totals {
    int64_t count = 0, self_ns = 0, total_ns = 0;
  };
  std::map<std::string, Totals> by_name;
  const std::vector<int64_t> self = profiler::self_times(events);
  for (size_t i = 0; i < events.size(); ++i) {
    Totals& t = by_name[events[i].name];
    t.count += 1;
    t.self_ns += self[i];
    t.total_ns += events[i].duration_ns();
  }
  std::vector<std::pair<std::string, Totals>> rows(by_name.begin(), by_name.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.self_ns > b.second.self_ns; });
  for (const auto& [name, t] : rows) {
    std::string key = name;
    std::replace(key.begin(), key.end(), ' ', '_');
    std::printf("key_average %s %.2f %.4f %.4f\n", key.c_str(), static_cast<double>(t.count) / steps,
                t.self_ns / 1e6 / steps, t.total_ns / 1e6 / steps);
  }
}

// The mean over the ranks that computed one of their loss of the step (each dp rank of its
// rows; tp ranks agree): the loss of the global batch, on every rank.
double batch_loss(ProcessGroup& world, std::optional<double> loss) {
  const std::vector<double> mine = loss ? std::vector<double>{*loss, 1} : std::vector<double>{0, 0};
  Tensor sum_count = native::from_vector<double>(mine, {2}, TensorOptions(kFloat64));
  world.all_reduce(sum_count)->wait();
  return sum_count[0].item<double>() / sum_count[1].item<double>();
}

void run(const Config& config, const GroupPtr& world) {
  const int64_t rss_base = peak_rss_kb();
  models::GPTConfig gpt = models::GPTConfig::preset(config.model);
  BRISK_CHECK(config.seq <= gpt.block_size(), "--seq {} exceeds {}'s block_size {}", config.seq, config.model,
              gpt.block_size());
  manual_seed(1234);  // the same weights on every rank
  Generator data_gen(99);
  const Tensor tokens =
      native::randint(0, gpt.vocab_size(), {config.batch, config.seq}, TensorOptions(kInt64), &data_gen);
  const Tensor targets =
      native::randint(0, gpt.vocab_size(), {config.batch, config.seq}, TensorOptions(kInt64), &data_gen);
  bench::LayoutRun layout = config.layout == "single" || config.layout == "dp"
                                ? data_parallel_layout(gpt, tokens, targets, world, config.layout == "dp")
                            : config.layout == "tp" ? tp_blocks_layout(gpt, config, data_gen, world)
                            : config.layout == "pp" ? pipeline_layout(gpt, config, tokens, targets, world)
                                                    : bench::parallel_gpt_layout(gpt, tokens, targets, config.mesh);

  std::optional<double> first_loss, last_loss;  // this rank's, where it computes one
  int steps_taken = 0;
  auto train_step = [&] {
    layout.optimizer->zero_grad(true);
    const Tensor loss = layout.step();
    layout.optimizer->step();
    last_loss = loss.defined() ? std::optional<double>(loss.item<double>()) : std::nullopt;
    if (steps_taken++ == 0) first_loss = last_loss;
  };
  std::vector<double> step_ms, bubbles;
  world->barrier()->wait();
  for (int s = 0; s < config.warmup; ++s) train_step();
  for (int s = 0; s < config.steps; ++s) step_ms.push_back(bench::median_ms(0, 1, train_step));
  const double loss_first = batch_loss(*world, first_loss), loss_last = batch_loss(*world, last_loss);
  // The bubble on steps of their own: the profiler records every op, which the timed steps
  // should not pay for. Each pipeline measures its own; the row takes the worst pipeline's.
  for (int s = 0; layout.pipeline && s < config.profiled_steps; ++s) {
    profiler::Profiler prof;
    prof.start();
    train_step();
    prof.stop();
    bubbles.push_back(gathered_bubble(*layout.pipeline, prof.events()));
  }
  std::vector<profiler::Event> op_events;
  if (config.key_average_steps > 0) {
    profiler::Profiler prof;
    prof.start();
    for (int s = 0; s < config.key_average_steps; ++s) train_step();
    prof.stop();
    op_events = prof.events();
  }
  const int64_t median_us = static_cast<int64_t>(bench::median(step_ms) * 1000);
  const int64_t bubble_ppm = bubbles.empty() ? -1 : static_cast<int64_t>(bench::median(bubbles) * 1e6);
  const std::vector<int64_t> most = all_reduce_values(
      *world, {median_us, peak_rss_kb(), rss_base, static_cast<int64_t>(max_memory_allocated(kCPU)), bubble_ppm},
      dist::ReduceOp::MAX);
  if (world->rank() != 0) return;
  const double step_s = static_cast<double>(most[0]) / 1e6;
  std::printf("parallel_bench side=brisk model=%s layout=%s ranks=%d batch=%lld seq=%lld microbatches=%d threads=%d "
              "parameters=%lld step_ms=%.2f tokens_per_s=%.1f rss_mb=%.1f rss_base_mb=%.1f alloc_mb=%.1f "
              "bubble_formula=%s bubble_measured=%s loss_first=%.7f loss_last=%.7f\n",
              config.model.c_str(), layout.name.c_str(), world->size(), static_cast<long long>(config.batch),
              static_cast<long long>(config.seq), layout.microbatches, config.threads,
              static_cast<long long>(gpt.parameter_count()), step_s * 1e3,
              static_cast<double>(config.batch * config.seq) / step_s, most[1] / 1024.0, most[2] / 1024.0,
              most[3] / 1e6, layout.bubble_formula < 0 ? "-" : std::to_string(layout.bubble_formula).c_str(),
              most[4] < 0 ? "-" : std::to_string(static_cast<double>(most[4]) / 1e6).c_str(), loss_first, loss_last);
  if (config.key_average_steps > 0) print_key_averages(op_events, config.key_average_steps);
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  CLI::App app{"GPT training throughput and peak memory per rank under a parallel layout (run through the launcher)"};
  app.add_option("--model", config.model, "a GPT preset (models/gpt_config.h)");
  app.add_option("--layout", config.layout, "single, dp, tp, pp or mesh")
      ->check(CLI::IsMember({"single", "dp", "tp", "pp", "mesh"}));
  app.add_option("--schedule", config.schedule,
                 "pp, mesh: gpipe, 1f1b, interleaved (2 chunks per rank) or zb-h1 (pipeline/schedules.h)");
  app.add_option("--dp", config.mesh.dp, "mesh: data-parallel ranks");
  app.add_option("--tp", config.mesh.tp, "mesh: tensor-parallel ranks");
  app.add_option("--pp", config.mesh.pp, "mesh: pipeline ranks (--dp x --tp x --pp: the world size)");
  app.add_option("--batch", config.batch, "sequences per step, the global batch");
  app.add_option("--seq", config.seq, "tokens per sequence");
  app.add_option("--microbatches", config.microbatches, "pp, mesh with --pp > 1: microbatches per step");
  app.add_option("--warmup", config.warmup, "steps before measuring");
  app.add_option("--steps", config.steps, "measured steps");
  app.add_option("--profiled-steps", config.profiled_steps,
                 "pp, mesh: profiled steps after the timed ones (the bubble)");
  app.add_option("--key-averages", config.key_average_steps,
                 "profile this many steps after the timed ones; print rank 0's ops by self time per step");
  app.add_option("--threads", config.threads, "intra-op threads per process");
  CLI11_PARSE(app, argc, argv);
  try {
    config.mesh.schedule = config.schedule;
    config.mesh.microbatches = config.microbatches;
    set_num_threads(config.threads);
    init_process_group("gloo");
    run(config, default_group());
    destroy_process_group();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
