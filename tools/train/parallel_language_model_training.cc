#include "tools/train/parallel_language_model_training.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "data/byte_text.h"
#include "distributed/mesh/device_mesh.h"
#include "distributed/pipeline/pipeline_stage.h"
#include "distributed/zero/zero_redundancy_optimizer.h"
#include "models/parallel/gather_gpt_state.h"
#include "models/parallel/parallel_gpt.h"
#include "models/parallel/parallel_gpt_eval.h"
#include "tensor/error.h"
#include "tensor/generator.h"
#include "tools/train/language_model_eval.h"
#include "tools/train/optimization.h"
#include "tools/train/resolve_path.h"
#include "tools/train/run_checkpoints.h"

namespace brisk::train {
namespace {

using dist::pipeline::PipelineSchedule;
using dist::pipeline::PipelineStage;

// The layout's settings that cannot train, each refused naming its flags.
void check_layout(const TrainOptions& o, const dist::DistributedContext& run, int microbatches) {
  BRISK_CHECK(o.dp * o.tp * o.pp == run.world_size,
              "--dp {} x --tp {} x --pp {} is {} ranks, but the job has {} processes (world size {})", o.dp, o.tp, o.pp,
              o.dp * o.tp * o.pp, run.world_size, run.world_size);
  BRISK_CHECK(o.batch_size % o.dp == 0, "--batch-size {} does not split evenly over --dp {}", o.batch_size, o.dp);
  BRISK_CHECK(o.batch_size / o.dp >= microbatches,
              "each data-parallel rank's {} sequences (--batch-size {} / --dp {}) are fewer than --microbatches {}",
              o.batch_size / o.dp, o.batch_size, o.dp, microbatches);
  BRISK_CHECK(o.pp_schedule != "interleaved" || o.pp > 1, "--pp-schedule interleaved needs --pp 2 or more");
  std::vector<std::string> given;
  if (o.accumulate > 1) given.push_back("--accumulate (use --microbatches)");
  if (o.checkpoint_format != "single") given.push_back("--checkpoint-format " + o.checkpoint_format);
  BRISK_CHECK(given.empty(), "--model gpt on --dp {} --tp {} --pp {} does not train with {} yet", o.dp, o.tp, o.pp,
              fmt::join(given, ", "));
}

// This step's loss on every rank: the last stage's, averaged over dp (its tp ranks agree).
double global_loss(const Tensor& stage_loss, const models::ParallelGPTImpl& model) {
  const bool speaks = model.has_last_stage() && model.groups.tp->rank() == 0;
  Tensor value = full({1}, Scalar(speaks ? stage_loss.item<double>() : 0.0), TensorOptions(kFloat64));
  dist::default_group()->all_reduce(value)->wait();
  return value.item<double>() / static_cast<double>(model.groups.dp->size());
}

// held_out_loss on the layout: dp rank d evaluates batches d, d + dp, ... of kEvalBatch
// consecutive windows through its pipeline (parallel_gpt_eval.h); the sums meet over dp.
double layout_held_out_loss(models::ParallelGPTImpl& model, const std::vector<uint8_t>& bytes, int64_t limit) {
  const int64_t T = model.config.block_size();
  int64_t windows = data::window_count(bytes, T);
  if (limit > 0) windows = std::min(windows, limit);
  BRISK_CHECK(windows > 0, "the held-out text ({} bytes) is shorter than one window of block_size + 1 = {} bytes",
              bytes.size(), T + 1);
  const int dp = model.groups.dp->size(), dp_rank = model.groups.dp->rank();
  model.eval();
  double total = 0;
  for (int64_t first = 0, index = 0; first < windows; first += kEvalBatch, ++index) {
    if (index % dp != dp_rank) continue;
    data::TokenBatch batch = data::consecutive_windows(bytes, T, first, std::min(kEvalBatch, windows - first));
    total += models::parallel_gpt_loss(model, batch.inputs, batch.targets) * static_cast<double>(batch.inputs.size(0));
  }
  model.train();
  Tensor sum = full({1}, Scalar(total), TensorOptions(kFloat64));
  model.groups.dp->all_reduce(sum)->wait();
  return sum.item<double>() / static_cast<double>(windows);
}

}  // namespace

int run_parallel_language_model(const TrainOptions& options, const dist::DistributedContext& run) {
  const int microbatches = options.microbatches > 0 ? options.microbatches : options.pp;
  check_layout(options, run, microbatches);
  BRISK_CHECK(run.device.is_cpu(), "--model gpt on a layout trains on the CPU for now; got --device {}",
              run.device.str());
  const std::string text_path = resolve_path(options.data_file.empty() ? data::kDefaultTextPath : options.data_file);
  const data::ByteText text = data::ByteText::from_path(text_path);
  const models::GPTConfig config = gpt_config(options.gpt_size, options.block_size);
  const int64_t T = config.block_size();
  BRISK_CHECK(static_cast<int64_t>(text.train().size()) > T,
              "{}: the training part ({} bytes) is shorter than one window of block_size + 1 = {} bytes", text_path,
              text.train().size(), T + 1);

  dist::DeviceMesh mesh({{"pp", options.pp}, {"dp", options.dp}, {"tp", options.tp}});
  const models::GPTParallelGroups groups = models::gpt_parallel_groups(mesh);
  // The whole model as one process draws it; the parallel one's own draws are put back, so
  // that the batches drawn next are one process's too.
  std::shared_ptr<models::GPTImpl> whole = make_gpt(options, config);
  const Generator::State after_model = default_generator().get_state();
  const int chunks = options.pp_schedule == "interleaved" ? 2 : 1;
  models::ParallelGPT model(config, groups, chunks);
  default_generator().set_state(after_model);
  model->load_full_state_dict(whole->state_dict());
  const std::vector<std::string> full_keys = whole->named_parameters().keys();
  whole.reset();

  std::unique_ptr<optim::Optimizer> plain;
  std::unique_ptr<dist::ZeroRedundancyOptimizer> zero;
  if (options.shard == "zero1") {
    zero = std::make_unique<dist::ZeroRedundancyOptimizer>(
        model->parameters(), [&](std::vector<Tensor> shard) { return make_optimizer(options, shard); }, groups.dp);
  } else {
    plain = make_optimizer(options, model->parameters());
  }
  optim::Optimizer& local = zero ? zero->local_optimizer() : *plain;
  const int64_t steps =
      options.steps_per_epoch > 0
          ? options.steps_per_epoch
          : std::max<int64_t>(1, static_cast<int64_t>(text.train().size()) / (options.batch_size * T));
  std::unique_ptr<optim::LRScheduler> scheduler = make_scheduler(options, local, steps);
  PipelineStage stage(
      groups.pp, model->stage_functions(),
      PipelineSchedule::make(dist::pipeline::parse_schedule(options.pp_schedule), options.pp, microbatches, chunks),
      model->loss_function());

  // Checkpoints are one process's (models/parallel/gather_gpt_state.h): its metadata, the whole model and the
  // optimizer state of its parameters; any layout, or one process, resumes them.
  const dist::DistributedContext one_process;
  checkpoint::Progress progress;
  if (std::optional<std::string> path = checkpoint_to_resume(options)) {
    checkpoint::Checkpoint resumed = load_resumed(*path, options, one_process);
    BRISK_CHECK(resumed.optimizer_name == local.name(), "{} holds the state of {}, this run steps {}", *path,
                resumed.optimizer_name, local.name());
    model->load_full_state_dict(resumed.model);
    const optim::OptimizerState mine = models::split_optimizer_state(*model, resumed.optimizer, full_keys);
    if (zero) {
      zero->load_state_dict(mine);
    } else {
      plain->load_state_dict(mine);
    }
    if (scheduler) scheduler->load_state_dict(resumed.scheduler);
    default_generator().set_state(resumed.generator);
    progress = resumed.progress;
    spdlog::info("resumed from {}: epoch {}, step {}", *path, progress.epoch + 1, progress.batch);
  }
  spdlog::info("gpt {} ({} parameters: {} layers, {} heads, {} wide, {} bytes of context) on {} CPU processes: "
               "--dp {} --tp {} --pp {}, {} over {} microbatches{}; {} training and {} held-out bytes of {}",
               options.gpt_size, config.parameter_count(), config.n_layer(), config.n_head(), config.n_embd(), T,
               run.world_size, options.dp, options.tp, options.pp, options.pp_schedule, microbatches,
               zero ? ", ZeRO-1 over dp" : "", text.train().size(), text.held_out().size(), text_path);
  spdlog::info("{} {}, batch {} x {} bytes, {} steps an epoch, epochs {} to {}", local.name(),
               local.param_groups()[0].options().to_json().dump(), options.batch_size, T, steps, progress.epoch + 1,
               options.epochs);

  std::unique_ptr<checkpoint::CheckpointWriter> writer;
  if (!options.save.empty() && models::is_gathering_rank(*model)) writer = make_checkpoint_writer(options);
  // Collective: the whole model and optimizer state onto rank 0, which writes them.
  auto save = [&](const checkpoint::Progress& at) {
    nn::StateDict model_state = models::gather_full_state_dict(*model);
    optim::OptimizerState local_state;
    if (zero) {
      zero->consolidate_state_dict(/*to=*/0);
      if (groups.dp->rank() == 0) local_state = zero->state_dict();
    } else {
      local_state = plain->state_dict();
    }
    optim::OptimizerState optimizer_state = models::gather_full_optimizer_state(*model, local_state, full_keys);
    if (!writer) return;
    checkpoint::Checkpoint ckpt;
    ckpt.model = std::move(model_state);
    ckpt.optimizer_name = local.name();
    ckpt.optimizer = std::move(optimizer_state);
    if (scheduler) ckpt.scheduler = scheduler->state_dict();
    ckpt.progress = at;
    ckpt.generator = default_generator().get_state();
    ckpt.metadata = run_metadata(options, one_process);
    ckpt.metadata["gpt_size"] = options.gpt_size;
    ckpt.metadata["block_size"] = std::to_string(T);
    writer->save(ckpt);
  };

  const int64_t rows = options.batch_size / options.dp, first_row = groups.dp->rank() * rows;
  model->train();
  while (progress.epoch < options.epochs) {
    const auto start = std::chrono::steady_clock::now();
    double loss_sum = 0;
    int64_t loss_count = 0;
    for (; progress.batch < steps; ++progress.batch) {
      data::TokenBatch batch = data::random_windows(text.train(), options.batch_size, T, default_generator());
      model->zero_grad();
      Tensor loss = stage.step(model->has_first_stage() ? std::vector<Tensor>{batch.inputs.narrow(0, first_row, rows)}
                                                        : std::vector<Tensor>{},
                               model->has_last_stage() ? std::vector<Tensor>{batch.targets.narrow(0, first_row, rows)}
                                                       : std::vector<Tensor>{});
      model->reduce_gradients();
      if (options.max_grad_norm > 0) model->clip_grad_norm_(options.max_grad_norm);
      if (zero) {
        zero->step();
      } else {
        plain->step();
      }
      if (scheduler) scheduler->step();
      ++progress.step;
      const double step_loss = global_loss(loss, *model);
      loss_sum += step_loss;
      ++loss_count;
      if ((progress.batch + 1) % options.log_interval == 0) {
        spdlog::info("epoch {}/{} step {}/{}: train loss {:.4f} ({:.3f} bits per byte)", progress.epoch + 1,
                     options.epochs, progress.batch + 1, steps, step_loss, bits_per_byte(step_loss));
      }
      if (!options.save.empty() && options.checkpoint_every > 0 && progress.step % options.checkpoint_every == 0 &&
          progress.batch + 1 < steps) {
        save({progress.epoch, progress.batch + 1, progress.step});
      }
    }
    const double held_out = layout_held_out_loss(*model, text.held_out(), options.test_limit);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double train_loss = loss_count > 0 ? loss_sum / static_cast<double>(loss_count) : NAN;
    log_epoch(progress.epoch, options.epochs, train_loss, held_out, loss_count, options.batch_size * T, seconds);
    ++progress.epoch;
    progress.batch = 0;
    if (!options.save.empty()) save(progress);
  }
  if (writer) writer->wait();
  return 0;
}

}  // namespace brisk::train
