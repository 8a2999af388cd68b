#include "tools/train/run_checkpoints.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "checkpoint/compatibility.h"
#include "checkpoint/save_pattern.h"
#include "checkpoint/sharded/sharded_checkpoint.h"
#include "distributed/fsdp/fsdp_checkpoint.h"
#include "distributed/zero2/zero2_checkpoint.h"
#include "tensor/error.h"
#include "tensor/generator.h"
#include "tools/train/optimization.h"
#include "tools/train/resolve_path.h"

namespace brisk::train {
namespace {

// Metadata's "world_size": "1" in one process, "N (distributed)" in a process group.
std::string world_size_entry(const dist::DistributedContext& run) {
  return run.enabled ? std::to_string(run.world_size) + " (distributed)" : "1";
}

// Whether `ckpt` was saved by a distributed run, and this run is one: then its world size may
// differ (check_resume_world_size); a run in one process shuffles with its own sampler.
bool both_distributed(const checkpoint::Checkpoint& ckpt, const dist::DistributedContext& run) {
  auto saved = ckpt.metadata.find("world_size");
  return run.enabled && saved != ckpt.metadata.end() && saved->second.find("(distributed)") != std::string::npos;
}

}  // namespace

checkpoint::Metadata run_metadata(const TrainOptions& options, const dist::DistributedContext& run) {
  return {{"dataset", options.dataset},
          {"model", options.model},
          {"batch_size", std::to_string(options.batch_size)},
          {"accumulate", std::to_string(options.accumulate)},
          {"train_limit", std::to_string(options.train_limit)},
          {"optimizer", options.optimizer},
          {"lr_schedule", options.lr_schedule},
          {"epochs", options.lr_schedule == "constant" ? "any (constant schedule)" : std::to_string(options.epochs)},
          {"warmup_epochs", fmt::format("{}", options.warmup_epochs)},
          {"max_grad_norm", fmt::format("{}", options.max_grad_norm)},
          {"label_smoothing", fmt::format("{}", options.label_smoothing)},
          {"sync_bn", options.sync_bn && run.enabled ? "on" : "off"},
          {"amp", options.amp},
          {"seed", std::to_string(options.seed)},
          {"world_size", world_size_entry(run)}};
}

std::optional<std::string> checkpoint_to_resume(const TrainOptions& options) {
  if (options.resume.empty()) return std::nullopt;
  if (options.resume != kResumeAuto) return resolve_path(options.resume);
  std::optional<std::string> newest = checkpoint::newest_checkpoint(resolve_path(options.save));
  if (!newest) spdlog::info("--resume auto: no checkpoint of {} yet; starting afresh", options.save);
  return newest;
}

bool saves_sharded_checkpoints(const TrainOptions& options, const dist::DistributedContext& run) {
  return options.checkpoint_format == "sharded" && (options.shard == "zero2" || options.shard == "full") && run.enabled;
}

checkpoint::Checkpoint load_resumed(const std::string& path, const TrainOptions& options,
                                    const dist::DistributedContext& run, bool tensors) {
  checkpoint::Checkpoint ckpt = !checkpoint::is_sharded_checkpoint_path(path) ? checkpoint::load_checkpoint(path)
                                : tensors ? checkpoint::load_sharded_checkpoint(path)
                                          : checkpoint::load_sharded_checkpoint_metadata(path);
  checkpoint::Metadata compared = run_metadata(options, run);
  compared.erase("seed");  // the checkpoint's generator state replaces the seed
  // Another distributed world size may do: check_resume_world_size, once the data is known.
  if (both_distributed(ckpt, run)) compared.erase("world_size");
  checkpoint::check_metadata(ckpt, compared);
  return ckpt;
}

void check_resume_world_size(const checkpoint::Checkpoint& ckpt, const dist::DistributedContext& run,
                             int64_t train_examples) {
  if (!both_distributed(ckpt, run)) return;  // load_resumed compared the world sizes
  const std::string here = world_size_entry(run);
  const std::string saved = ckpt.metadata.at("world_size");
  if (saved == here) return;
  const int64_t saved_size = std::stoll(saved);  // "N (distributed)"
  // DistributedSampler's rank r takes positions r, r + N, ... of the epoch's order, so a
  // global batch holds the same positions on any N that pads nothing.
  BRISK_CHECK(train_examples % saved_size == 0 && train_examples % run.world_size == 0,
              "{}: saved with world_size {}, this run has {}: another world size resumes the same global batches "
              "only when both split the {} training examples evenly (DistributedSampler pads them otherwise)",
              ckpt.path, saved, here, train_examples);
  spdlog::info("resuming a checkpoint of {} processes on {}: the same global batches, summed in another order",
               saved_size, run.world_size);
}

void save_shards(const std::string& directory, nn::Module& model, const ShardedTraining& sharding,
                 const checkpoint::Progress& at, uint64_t data_seed, const optim::LRScheduler* scheduler,
                 const checkpoint::Metadata& metadata) {
  if (sharding.zero2 != nullptr) {
    dist::save_zero2_checkpoint(directory, model, *sharding.zero2, at, data_seed, scheduler, metadata);
  } else {
    BRISK_CHECK(sharding.optimizer && sharding.optimizer->shards_parameters(),
                "save_shards: sharded checkpoints are --shard zero2's and full's");
    dist::save_fsdp_checkpoint(directory, model, sharding.optimizer->local_optimizer(), at, data_seed, scheduler,
                               metadata);
  }
}

void load_shards(const std::string& directory, nn::Module& model, const ShardedTraining& sharding,
                 optim::LRScheduler* scheduler) {
  if (sharding.zero2 != nullptr) {
    dist::load_zero2_checkpoint(directory, model, *sharding.zero2, scheduler);
  } else {
    BRISK_CHECK(sharding.optimizer && sharding.optimizer->shards_parameters(),
                "load_shards: sharded checkpoints are --shard zero2's and full's");
    dist::load_fsdp_checkpoint(directory, model, sharding.optimizer->local_optimizer(), scheduler);
  }
}

std::unique_ptr<checkpoint::CheckpointWriter> make_checkpoint_writer(const TrainOptions& options) {
  const std::string pattern = resolve_path(options.save);
  for (const std::string& removed : checkpoint::remove_stale_checkpoint_temporaries(pattern)) {
    spdlog::info("removed {}, a temporary file that a killed checkpoint write left behind", removed);
  }
  return std::make_unique<checkpoint::CheckpointWriter>(
      pattern,
      checkpoint::CheckpointWriterOptions().keep_last(options.keep_checkpoints).log([](const std::string& line) {
        spdlog::info("{}", line);
      }));
}

void restore_grad_scaler(const checkpoint::Checkpoint& ckpt, optim::GradScaler& scaler) {
  auto saved = ckpt.metadata.find("grad_scaler");
  BRISK_CHECK(saved != ckpt.metadata.end(), "{}: an --amp fp16 checkpoint without the GradScaler's state", ckpt.path);
  scaler.load_state_dict(nlohmann::json::parse(saved->second));
}

void restore_sharded(const checkpoint::Checkpoint& ckpt, const TrainOptions& options, nn::Module& model,
                     ShardedOptimizer& sharded, optim::LRScheduler* scheduler) {
  // No state: only its parameters and groups are compared.
  const std::unique_ptr<optim::Optimizer> unsharded = make_optimizer(options, model.parameters());
  if (sharded.shards_parameters()) {
    // The model holds shards: load_full_model_state_dict checks its names and full shapes.
    checkpoint::Checkpoint unchecked_model = ckpt;
    unchecked_model.model = model.state_dict();
    checkpoint::check_compatible(unchecked_model, model, *unsharded, scheduler);
  } else {
    checkpoint::check_compatible(ckpt, model, *unsharded, scheduler);
  }
  sharded.load_full_model_state_dict(model, ckpt.model);
  sharded.load_state_dict(ckpt.optimizer);
  if (scheduler != nullptr) scheduler->load_state_dict(ckpt.scheduler);
  default_generator().set_state(ckpt.generator);
}

}  // namespace brisk::train
