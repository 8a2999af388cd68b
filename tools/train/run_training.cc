#include "tools/train/run_training.h"

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "checkpoint/checkpoint.h"
#include "checkpoint/checkpoint_writer.h"
#include "checkpoint/save_pattern.h"
#include "checkpoint/sharded/sharded_checkpoint.h"
#include "cuda/conv_algorithm_cache.h"
#include "data/data_loader.h"
#include "data/distributed_sampler.h"
#include "data/random.h"
#include "distributed/ddp/distributed_data_parallel.h"
#include "distributed/distributed.h"
#include "distributed/init_distributed.h"
#include "distributed/nn/sync_batchnorm.h"
#include "distributed/zero2/zero2_data_parallel.h"
#include "models/registry.h"
#include "nn/functional.h"
#include "tensor/error.h"
#include "tensor/generator.h"
#include "tensor/memory.h"
#include "tensor/parallel.h"
#include "tools/train/language_model_training.h"
#include "tools/train/metrics_csv.h"
#include "tools/train/metrics_svg.h"
#include "tools/train/optimization.h"
#include "tools/train/progress_reporter.h"
#include "tools/train/resolve_path.h"
#include "tools/train/run_checkpoints.h"
#include "tools/train/sharding.h"
#include "tools/train/step_profiler.h"
#include "tools/train/tensorboard_log.h"
#include "tools/train/train_options.h"
#include "tools/train/training_data.h"
#include "train/distributed_run.h"
#include "train/graphed_step.h"
#include "train/preemption.h"
#include "train/train_loop.h"

namespace brisk::train {
namespace {

// The data order's seed is derived from --seed (its stream 1), not drawn from the default
// generator, so that it is the same whatever the model's initialization draws.
constexpr uint64_t kDataSeedStream = 1;
constexpr int64_t kTestBatchSize = 1000;

int64_t count_parameters(const nn::Module& module) {
  int64_t n = 0;
  for (const Tensor& p : module.parameters()) n += p.numel();
  return n;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The training data in micro-batches, --accumulate of them a global batch of
// options.batch_size: in one process, shuffled by a RandomSampler; distributed, each rank's
// DistributedSampler share (every rank the same seed) in batches of its part of the global
// micro-batch.
data::DataLoader make_train_loader(const TrainOptions& options, const TrainingData& data, uint64_t data_seed,
                                   Device device, const dist::DistributedContext& run) {
  auto loader_options = data::DataLoaderOptions()
                            .batch_size(per_rank_batch_size(options.batch_size, run.world_size, options.accumulate))
                            .seed(data_seed)
                            .num_workers(options.workers)
                            .pin_memory(device.is_cuda())
                            .collate(data.collate);
  if (!run.enabled) return data::DataLoader(data.train, loader_options.shuffle(true));
  auto sampler = std::make_shared<data::DistributedSampler>(data.train->size(), run.world_size, run.rank,
                                                            data::DistributedSamplerOptions().seed(data_seed));
  return data::DataLoader(data.train, sampler, loader_options);
}

// Where the memory of `device`'s tensors is counted: the simulated device's blocks come from
// the CPU allocator.
Device memory_device(Device device) { return device.is_sim() ? kCPU : device; }

// Thrown by the step callback to leave an epoch at the step where the ranks agreed to stop.
struct Preempted {};

}  // namespace

// A function-try-block: every brisk::Error that stops the run (a bad flag, missing data, a
// peer lost) is logged and turns into exit status 1.
int run_training(int argc, char** argv, RunHooks* hooks) try {
  TrainOptions options;
  CLI::App app{
      "Trains a reference model on MNIST-format data (Fashion-MNIST by default) or CIFAR-10, or GPT on byte-level "
      "text (docs/training.md)."};
  add_train_flags(app, options);
  CLI11_PARSE(app, argc, argv);
  apply_language_model_defaults(app, options);
  check_train_options(options);
  if (options.threads > 0) set_num_threads(options.threads);
  dist::ProcessGroupOptions group_options;
  if (options.heartbeat_timeout >= 0)
    group_options.heartbeat_timeout = std::chrono::milliseconds(std::llround(options.heartbeat_timeout * 1000));
  if (options.stall_timeout > 0)
    group_options.stall_timeout = std::chrono::milliseconds(std::llround(options.stall_timeout * 1000));
  const dist::DistributedContext run = dist::init_distributed(
      dist::InitDistributedOptions().device(options.device).backend(options.dist_backend).group_options(group_options));
  if (!run.is_main()) spdlog::set_level(spdlog::level::warn);  // rank 0 speaks for the job
  const Device device = run.device;
  manual_seed(options.seed);
  if (models::is_language_model(options.model)) {
    const int status = run_language_model(options, run);
    dist::finish_distributed(run);
    return status;
  }
  // --checkpoint-format sharded: each rank saves its shards and, resuming from such a
  // checkpoint, loads only its rows once the model is built (`resume_shards`).
  const bool sharded_checkpoints = saves_sharded_checkpoints(options, run);
  BRISK_CHECK(sharded_checkpoints || options.checkpoint_format != "sharded",
              "--checkpoint-format sharded saves each rank's shards of a distributed --shard zero2 or full run; one "
              "process trains unsharded (use --checkpoint-format single)");
  std::optional<checkpoint::Checkpoint> resumed;
  bool resume_shards = false;
  if (std::optional<std::string> path = checkpoint_to_resume(options)) {
    resume_shards = sharded_checkpoints && checkpoint::is_sharded_checkpoint_path(*path);
    resumed = load_resumed(*path, options, run, /*tensors=*/!resume_shards);
  }
  // Each rank looked for the newest checkpoint itself.
  if (options.resume == kResumeAuto) check_same_resume_step(resumed ? resumed->progress.step : -1, run);

  const std::string data_dir =
      resolve_path(options.data_dir.empty() ? default_data_dir(options.dataset) : options.data_dir);
  TrainingData data = load_training_data(options.dataset, data_dir, options.train_limit, options.test_limit);
  check_batch_size(options, data.train->size());
  if (resumed) check_resume_world_size(*resumed, run, data.train->size());
  const uint64_t data_seed = resumed ? resumed->data_seed : data::derive_seed(options.seed, kDataSeedStream);
  data::DataLoader train_loader = make_train_loader(options, data, data_seed, device, run);
  // Distributed, each rank evaluates its own part of the test set and the sums are added.
  data::DataLoader test_loader(
      evaluation_shard(data.test, run),
      data::DataLoaderOptions().batch_size(kTestBatchSize).num_workers(options.workers).collate(data.collate));

  std::shared_ptr<nn::Module> model = models::make_model(options.model, data.image, data.num_classes);
  if (options.sync_bn && run.enabled) {
    spdlog::info("--sync-bn: {} BatchNorm layers normalize over all {} processes", nn::convert_sync_batchnorm(*model),
                 run.world_size);
  }
  model->to(device);
  if (options.channels_last) {
    model->to(MemoryFormat::ChannelsLast);
    spdlog::info("--channels-last: the model's 4-D parameters are channels_last (NHWC)");
  }
  // --shard zero1/zero2 (distributed): the model wrapped now, each rank's optimizer over its
  // shard (`stepped`); else the optimizer over every parameter, and DDP below.
  const int64_t parameters = count_parameters(*model);  // before full sharding leaves this rank's shards
  ShardedTraining sharding;
  if (run.enabled && options.shard != "none") sharding = shard_training(options, model, run);
  std::unique_ptr<optim::Optimizer> optimizer =
      sharding.optimizer ? nullptr : make_optimizer(options, model->parameters());
  optim::Optimizer& stepped = sharding.optimizer ? sharding.optimizer->local_optimizer() : *optimizer;
  const int64_t steps = steps_per_epoch(train_loader.size(), options.accumulate);
  std::unique_ptr<optim::LRScheduler> scheduler = make_scheduler(options, stepped, steps);
  spdlog::info("{} ({} parameters) on {}, {} threads; {} {} training and {} test images from {}", options.model,
               parameters, device.str(), get_num_threads(), data.train->size(), data.image.str(), data.test->size(),
               data_dir);
  if (run.enabled) {
    spdlog::info("distributed: {} processes over {}, {} examples per process and step", run.world_size, run.backend,
                 train_loader.options().batch_size() * options.accumulate);
  }

  checkpoint::Progress progress;
  if (resume_shards) {
    load_shards(resumed->path, *model, sharding, scheduler.get());
    default_generator().set_state(resumed->generator);
  } else if (resumed && sharding.optimizer) {
    restore_sharded(*resumed, options, *model, *sharding.optimizer, scheduler.get());
  } else if (resumed) {
    checkpoint::restore(*resumed, *model, *optimizer, scheduler.get());
  }
  if (resumed) {
    progress = resumed->progress;
    spdlog::info("resumed from {}: epoch {}, batch {}, step {}", resumed->path, progress.epoch + 1, progress.batch,
                 progress.step);
  }
  if (hooks) hooks->start(progress, *model);
  // Trained through DDP (or --shard's Zero2DataParallel) when distributed; evaluated and saved
  // as the plain model, whose parameters the wrapper shares.
  const std::shared_ptr<dist::DistributedDataParallelBase> ddp =
      sharding.trained ? std::dynamic_pointer_cast<dist::DistributedDataParallelBase>(sharding.trained)
      : run.enabled    ? wrap_ddp(model, run)
                       : nullptr;
  const auto zero2 = std::dynamic_pointer_cast<dist::Zero2DataParallelBase>(sharding.trained);
  nn::Module& trained = sharding.trained ? *sharding.trained : ddp ? *ddp : *model;
  const std::string csv_path = resolve_path(options.metrics_csv);
  std::optional<MetricsCsv> csv;
  if (run.is_main()) csv.emplace(csv_path, /*append=*/resumed.has_value(), progress.epoch);
  std::optional<TensorBoardLog> tensorboard;
  if (run.is_main() && !options.tensorboard.empty())
    tensorboard.emplace(resolve_path(options.tensorboard), options.log_interval);
  spdlog::info(
      "{} {} ({} schedule{}), batch {}{}, {} steps an epoch, epochs {} to {}{}", stepped.name(),
      stepped.param_groups()[0].options().to_json().dump(), options.lr_schedule,
      options.warmup_epochs > 0 ? fmt::format(", {} warm-up epochs", options.warmup_epochs) : "", options.batch_size,
      options.accumulate > 1 ? fmt::format(" in {} micro-batches", options.accumulate) : "", steps, progress.epoch + 1,
      options.epochs, sharding.optimizer ? fmt::format(", --shard {}", options.shard) : "");
  // --amp fp16 scales the loss (float16's range loses small gradients); bf16 has float32's range.
  optim::GradScaler scaler(optim::GradScalerOptions().enabled(options.amp == "fp16"));
  if (resumed && scaler.is_enabled()) restore_grad_scaler(*resumed, scaler);
  StepOptions step_options{options.label_smoothing, options.max_grad_norm, options.accumulate};
  if (options.amp != "off") step_options.autocast_dtype = options.amp == "bf16" ? kBFloat16 : kFloat16;
  if (scaler.is_enabled()) step_options.scaler = &scaler;
  step_options.sharded = sharding.optimizer.get();
  std::optional<GraphedTrainStep> graphed;
  if (options.cuda_graph) {
    BRISK_CHECK(!device.is_cpu(), "--cuda-graph captures a device's work: it needs --device cuda or sim, not {}",
                device);
    graphed.emplace(trained, stepped, device, step_options);
  }
  // Rank 0 writes the checkpoints, in the background, from copies taken between steps.
  std::unique_ptr<checkpoint::CheckpointWriter> writer;
  if (run.is_main() && !options.save.empty() && !sharded_checkpoints) writer = make_checkpoint_writer(options);
  // Every rank, when the run saves a single file: a sharded optimizer's state (and under full
  // sharding the parameters) gathered onto rank 0 (collective).
  struct GatheredState {
    optim::OptimizerState optimizer;
    nn::StateDict model;
  };
  auto consolidated_state = [&]() -> std::optional<GatheredState> {
    if (options.save.empty() || !sharding.optimizer || sharded_checkpoints) return std::nullopt;
    return GatheredState{sharding.optimizer->consolidated_state_dict(0),
                         sharding.optimizer->full_model_state_dict(*model, 0)};
  };
  auto checkpoint_now = [&](const checkpoint::Progress& at, std::optional<GatheredState> sharded_state) {
    checkpoint::Checkpoint ckpt = checkpoint::capture(*model, stepped, at, data_seed, scheduler.get());
    if (sharded_state) {
      ckpt.optimizer = std::move(sharded_state->optimizer);
      ckpt.model = std::move(sharded_state->model);
    }
    ckpt.metadata = run_metadata(options, run);
    if (scaler.is_enabled()) ckpt.metadata["grad_scaler"] = scaler.state_dict().dump();
    if (hooks) hooks->before_checkpoint(at);
    writer->save(ckpt);
  };
  // --checkpoint-format sharded, on every rank (collective): each its own rows, synchronously.
  auto checkpoint_shards = [&](const checkpoint::Progress& at) {
    if (options.save.empty() || !sharded_checkpoints) return;
    checkpoint::Metadata metadata = run_metadata(options, run);
    if (scaler.is_enabled()) metadata["grad_scaler"] = scaler.state_dict().dump();
    if (hooks) hooks->before_checkpoint(at);
    const std::string directory = checkpoint::checkpoint_path(resolve_path(options.save), at);
    save_shards(directory, *model, sharding, at, data_seed, scheduler.get(), metadata);
    spdlog::info("saved the sharded checkpoint {} (step {}, {} ranks)", directory, at.step, run.world_size);
  };
  std::optional<StepProfiler> step_profiler;
  if (auto range = parse_step_range(options.profile_steps)) {
    step_profiler.emplace(*range, resolve_path(options.profile_trace), run.rank);
    step_profiler->at_step(progress.step);
  }

  // SIGTERM/SIGUSR1: stop at a step all ranks agree on, save it, exit for a requeue.
  Preemption preemption(run.enabled ? dist::default_store() : nullptr);
  bool preempted = false;
  const auto run_start = std::chrono::steady_clock::now();
  while (progress.epoch < options.epochs) {
    const auto epoch_start = std::chrono::steady_clock::now();
    reset_peak_memory_stats(memory_device(device));
    EpochRow row;
    row.epoch = progress.epoch + 1;
    // Rank 0's progress shows its own share of the epoch; the epoch's line and row, all ranks'.
    std::optional<ProgressReporter> reporter;
    if (run.is_main()) {
      reporter.emplace(fmt::format("epoch {}/{}", row.epoch, options.epochs), train_loader.size(), progress.batch,
                       options.log_interval, stderr_is_terminal());
    }
    // The metrics stay on the device between log lines; the other ranks check their targets
    // as often as rank 0 reads its metrics.
    dist::CommOverlap epoch_overlap;  // summed over this rank's steps
    int64_t epoch_steps = 0;
    if (tensorboard) tensorboard->start_epoch();
    MetricSums local(device);
    try {
      local = train_epoch(
          trained, stepped, scheduler.get(), train_loader, device, progress,
          [&](const checkpoint::Progress& p, const MetricSums& epoch) {
            if (hooks) hooks->after_step(p);
            if (step_profiler) step_profiler->at_step(p.step);
            if (ddp) epoch_overlap += ddp->comm_overlap();
            if (zero2) epoch_overlap += zero2->comm_overlap();
            ++epoch_steps;
            if (tensorboard) tensorboard->after_step(p, epoch, stepped.param_groups()[0].options().get_lr());
            if (reporter) {
              reporter->update(p.batch, epoch);
            } else if (p.batch % options.log_interval == 0) {
              nn::functional::check_deferred_targets();
            }
            // Within the epoch: its last step's checkpoint is the one after evaluation, and a
            // preemption at that step stops after it.
            const bool mid_epoch = p.batch < train_loader.size();
            const bool stop = mid_epoch && preemption.stop_after(p.step);
            if (mid_epoch && (stop || (options.checkpoint_every > 0 && p.step % options.checkpoint_every == 0))) {
              std::optional<GatheredState> sharded_state = consolidated_state();
              if (writer) checkpoint_now(p, std::move(sharded_state));
              checkpoint_shards(p);
            }
            if (stop) throw Preempted{};
          },
          step_options, graphed ? &*graphed : nullptr);
    } catch (const Preempted&) {
      preempted = true;
      break;
    }
    row.train = all_reduce_metrics(local, run);
    if (reporter) {
      reporter->finish();
      row.images_per_second = reporter->images_per_second(row.train.count);
    }
    // Training's peak apart from evaluation's, whose batches are larger and run in float32.
    const MemoryStats training_memory = memory_stats(memory_device(device));
    reset_peak_memory_stats(memory_device(device));
    broadcast_buffers(*model, run);  // every rank evaluates rank 0's model, the one saved
    row.test = all_reduce_metrics(evaluate(*model, test_loader, device), run);
    row.seconds = seconds_since(epoch_start);
    preempted = preemption.stop_after(progress.step);  // after the epoch's checkpoint, below
    std::optional<GatheredState> sharded_state = consolidated_state();
    checkpoint_shards(progress);
    if (!run.is_main()) {
      if (preempted) break;
      continue;
    }

    const MemoryStats evaluation_memory = memory_stats(memory_device(device));
    spdlog::info(
        "epoch {}/{}: train loss {:.4f} acc {:.2f}%, test loss {:.4f} acc {:.2f}%, {:.0f} images/s, {:.1f} s, peak "
        "memory {} allocated, {} reserved in training, {} allocated in evaluation ({})",
        row.epoch, options.epochs, row.train.loss(), 100 * row.train.accuracy(), row.test.loss(),
        100 * row.test.accuracy(), row.images_per_second, row.seconds,
        format_bytes(training_memory.peak_allocated_bytes), format_bytes(training_memory.peak_reserved_bytes),
        format_bytes(evaluation_memory.peak_allocated_bytes), memory_device(device).str());
    if (ddp || zero2) {
      spdlog::info("epoch {}/{}: gradient {} {:.2f} ms a step, {:.0f}% of it hidden behind backward (rank 0)",
                   row.epoch, options.epochs, zero2 ? "reduce-scatter" : "all-reduce",
                   epoch_overlap.communication_ms / static_cast<double>(std::max<int64_t>(epoch_steps, 1)),
                   100 * epoch_overlap.hidden_fraction());
    }
    if (graphed) {
      spdlog::info(
          "epoch {}/{}: --cuda-graph so far: {} steps replayed, {} captured, {} eager (warm-up, partial batches)",
          row.epoch, options.epochs, graphed->replays(), graphed->captures(), graphed->eager_steps());
    }
    csv->write(row);
    if (tensorboard) tensorboard->after_epoch(row);
    // Drawn from the file, so that a resumed run's chart shows the epochs before it too.
    write_metrics_svg(csv_path, metrics_svg_path(csv_path));
    if (writer) checkpoint_now(progress, std::move(sharded_state));
    if (preempted) break;
  }
  if (writer) writer->wait();  // the last checkpoint is complete before the program ends
  if (step_profiler) step_profiler->finish();
  if (device.is_cuda()) {
    // What cuDNN ran each convolution with (algorithm, math type, workspace), per layout.
    for (const cuda::ConvAlgorithmChoice& choice : cuda::conv_algorithm_choices()) {
      spdlog::info("cuDNN convolution: {}", cuda::describe(choice));
    }
  }
  if (preempted) {
    spdlog::warn("preempted by {}: stopped after step {} (epoch {}, batch {}), {}; exiting with status {}: start "
                 "the job again with --resume auto",
                 sigabbrev_np(preemption.signal()) ? fmt::format("SIG{}", sigabbrev_np(preemption.signal()))
                                                   : std::to_string(preemption.signal()),
                 progress.step, progress.epoch + 1, progress.batch,
                 options.save.empty() ? "nothing saved (no --save)" : "its checkpoint saved", kRequeueExitStatus);
    dist::finish_distributed(run);
    return kRequeueExitStatus;
  }
  spdlog::info("done: {} epochs in {:.1f} s", options.epochs, seconds_since(run_start));
  dist::finish_distributed(run);
  return 0;
} catch (const Error& e) {
  spdlog::error("{}", e.what());
  return 1;
}

}  // namespace brisk::train
