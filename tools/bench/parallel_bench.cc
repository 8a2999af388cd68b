// GPT training throughput and peak memory per rank under Brisk's parallel layouts on CPU over
// Gloo, one process per rank (run it through the launcher); parallel_bench_torch.py runs the
// same rows on PyTorch and run_parallel_bench.sh prints both side by side:
//
//   launch --nproc-per-node 2 parallel_bench --model mini --layout pp --schedule 1f1b
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
//           of the tp row). The whole tensor-parallel GPT is the composed model's (issue 28
//           section 5), not this file's.
//   pp      GPT blocks cut over ranks * v stages (v = 2 for interleaved, else 1), --microbatches
//           microbatches, PipelineStage with the schedule; the first stage holds the
//           embeddings, the last the final LayerNorm and an output head of its own (untied: the
//           token embedding sits on another rank). The bubble is measured on the profiler's
//           events of --profiled-steps further steps (the timed ones run without the
//           profiler), gathered from all ranks into one timeline (measure_bubble,
//           pipeline_timeline.h: (step - busy) / busy of the busiest-idle rank; the median
//           step's), beside the formula. Idle includes waiting on messages.
// Memory: the peak resident set size of each process (getrusage's ru_maxrss, which includes
// the program and its libraries: rss_base is the peak before the model was made) and the peak
// bytes held by tensors (max_memory_allocated(kCPU)), each the largest over ranks.
// Output: one line of key=value fields per run, "parallel_bench side=brisk ...".
#include <CLI/CLI.hpp>
#include <sys/resource.h>

#include <cstdio>
#include <memory>
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

pp::ScheduleKind schedule_kind(const std::string& name) {
  return name == "gpipe"  ? pp::ScheduleKind::GPipe
         : name == "1f1b" ? pp::ScheduleKind::OneFOneB
                          : pp::ScheduleKind::Interleaved1F1B;
}

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

void run(const Config& config, const GroupPtr& world) {
  const int64_t rss_base = peak_rss_kb();
  const int rank = world->rank(), n = world->size();
  models::GPTConfig gpt = models::GPTConfig::preset(config.model);
  BRISK_CHECK(config.seq <= gpt.block_size(), "parallel_bench: --seq {} exceeds {}'s block_size {}", config.seq,
              config.model, gpt.block_size());
  manual_seed(1234);  // the same weights on every rank
  Generator data_gen(99);
  const Tensor tokens =
      native::randint(0, gpt.vocab_size(), {config.batch, config.seq}, TensorOptions(kInt64), &data_gen);
  const Tensor targets =
      native::randint(0, gpt.vocab_size(), {config.batch, config.seq}, TensorOptions(kInt64), &data_gen);

  std::function<void()> step;
  std::shared_ptr<optim::Optimizer> opt;
  std::shared_ptr<pp::PipelineStage> stage;
  double bubble_formula = -1;
  if (config.layout == "single" || config.layout == "dp") {
    models::GPT model(gpt);
    const int64_t rows = config.batch / n;
    BRISK_CHECK(rows * n == config.batch, "parallel_bench: --batch {} does not split over {} ranks", config.batch, n);
    Tensor x = tokens.narrow(0, rank * rows, rows).contiguous(), y = targets.narrow(0, rank * rows, rows).contiguous();
    if (config.layout == "single") {
      opt = std::make_shared<optim::AdamW>(model->parameters(), optim::AdamWOptions(1e-4));
      step = [model, x, y]() mutable { models::gpt_loss(model(x), y).backward(); };
    } else {
      auto ddp = DistributedDataParallel(model, world);
      opt = std::make_shared<optim::AdamW>(ddp->parameters(), optim::AdamWOptions(1e-4));
      step = [ddp, x, y]() mutable { models::gpt_loss(ddp->forward(x), y).backward(); };
    }
  } else if (config.layout == "tp") {
    auto blocks = std::make_shared<std::vector<TPBlock>>();
    std::vector<Tensor> params;
    for (int64_t i = 0; i < gpt.n_layer(); ++i) {
      blocks->push_back(TPBlock(gpt, world));
      for (const Tensor& p : blocks->back()->parameters()) params.push_back(p);
    }
    opt = std::make_shared<optim::AdamW>(params, optim::AdamWOptions(1e-4));
    Tensor x = randn({config.batch, config.seq, gpt.n_embd()}, {}, &data_gen);
    Tensor y = randn({config.batch, config.seq, gpt.n_embd()}, {}, &data_gen);
    step = [blocks, x, y] {
      Tensor h = x;
      for (auto& block : *blocks) h = block(h);
      F::mse_loss(h, y).backward();
    };
  } else {
    const int v = config.schedule == "interleaved" ? 2 : 1;
    pp::PipelineSchedule schedule =
        pp::PipelineSchedule::make(schedule_kind(config.schedule), n, config.microbatches, v);
    const int stages = n * v;
    std::vector<pp::StageFunction> chunks;
    std::vector<Tensor> params;
    auto models = std::make_shared<std::vector<StageModel>>();
    for (int c = 0; c < v; ++c) {
      const int s = schedule.layout().stage_of(rank, c);
      // Blocks split as evenly as possible, the first stages taking one more.
      auto first_block = [&](int stage) {
        const int64_t base = gpt.n_layer() / stages, extra = gpt.n_layer() % stages;
        return stage * base + std::min<int64_t>(stage, extra);
      };
      models->push_back(StageModel(gpt, first_block(s), first_block(s + 1), s == 0, s == stages - 1));
      for (const Tensor& p : models->back()->parameters()) params.push_back(p);
      StageModel model = models->back();
      chunks.push_back([model](const std::vector<Tensor>& in) mutable { return std::vector<Tensor>{model(in[0])}; });
    }
    opt = std::make_shared<optim::AdamW>(params, optim::AdamWOptions(1e-4));
    stage = std::make_shared<pp::PipelineStage>(
        world, chunks, schedule,
        [](const std::vector<Tensor>& out, const std::vector<Tensor>& y) { return models::gpt_loss(out[0], y[0]); });
    bubble_formula = pp::formula_bubble(schedule);
    const std::vector<Tensor> in = stage->has_first_stage() ? std::vector<Tensor>{tokens} : std::vector<Tensor>{};
    const std::vector<Tensor> out = stage->has_last_stage() ? std::vector<Tensor>{targets} : std::vector<Tensor>{};
    step = [stage, in, out, models] { stage->step(in, out); };
  }

  auto train_step = [&] {
    opt->zero_grad(true);
    step();
    opt->step();
  };
  std::vector<double> step_ms, bubbles;
  world->barrier()->wait();
  for (int s = 0; s < config.warmup; ++s) train_step();
  for (int s = 0; s < config.steps; ++s) step_ms.push_back(bench::median_ms(0, 1, train_step));
  // The bubble on steps of their own: the profiler records every op, which the timed steps
  // should not pay for.
  for (int s = 0; stage && s < config.profiled_steps; ++s) {
    profiler::Profiler prof;
    prof.start();
    train_step();
    prof.stop();
    bubbles.push_back(gathered_bubble(*world, prof.events()));
  }
  const int64_t median_us = static_cast<int64_t>(bench::median(step_ms) * 1000);
  const std::vector<int64_t> most =
      all_reduce_values(*world, {median_us, peak_rss_kb(), rss_base, static_cast<int64_t>(max_memory_allocated(kCPU))},
                        dist::ReduceOp::MAX);
  if (rank != 0) return;
  const double step_s = static_cast<double>(most[0]) / 1e6;
  std::string layout = config.layout == "pp" ? "pp_" + config.schedule : config.layout;
  std::printf("parallel_bench side=brisk model=%s layout=%s ranks=%d batch=%lld seq=%lld microbatches=%d threads=%d "
              "parameters=%lld step_ms=%.2f tokens_per_s=%.1f rss_mb=%.1f rss_base_mb=%.1f alloc_mb=%.1f "
              "bubble_formula=%s bubble_measured=%s\n",
              config.model.c_str(), layout.c_str(), n, static_cast<long long>(config.batch),
              static_cast<long long>(config.seq), config.microbatches, config.threads,
              static_cast<long long>(gpt.parameter_count()), step_s * 1e3,
              static_cast<double>(config.batch * config.seq) / step_s, most[1] / 1024.0, most[2] / 1024.0,
              most[3] / 1e6, bubble_formula < 0 ? "-" : std::to_string(bubble_formula).c_str(),
              bubbles.empty() ? "-" : std::to_string(bench::median(bubbles)).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  CLI::App app{"GPT training throughput and peak memory per rank under a parallel layout (run through the launcher)"};
  app.add_option("--model", config.model, "a GPT preset (models/gpt_config.h)");
  app.add_option("--layout", config.layout, "single, dp, tp or pp")->check(CLI::IsMember({"single", "dp", "tp", "pp"}));
  app.add_option("--schedule", config.schedule, "pp: gpipe, 1f1b or interleaved (2 chunks per rank)")
      ->check(CLI::IsMember({"gpipe", "1f1b", "interleaved"}));
  app.add_option("--batch", config.batch, "sequences per step, the global batch");
  app.add_option("--seq", config.seq, "tokens per sequence");
  app.add_option("--microbatches", config.microbatches, "pp: microbatches per step");
  app.add_option("--warmup", config.warmup, "steps before measuring");
  app.add_option("--steps", config.steps, "measured steps");
  app.add_option("--profiled-steps", config.profiled_steps, "pp: profiled steps after the timed ones (the bubble)");
  app.add_option("--threads", config.threads, "intra-op threads per process");
  CLI11_PARSE(app, argc, argv);
  try {
    set_num_threads(config.threads);
    init_process_group("gloo");
    run(config, default_group());
    destroy_process_group();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parallel_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
