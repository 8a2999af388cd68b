#pragma once
// The training program's checkpoints beyond the training state (checkpoint/checkpoint.h): what
// they record about the run, which one --resume names, the check that it comes from a run like
// this one (on this world size or another), rank 0's background writer, each rank's sharded
// checkpoints, and --amp fp16's loss scale.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "checkpoint/checkpoint.h"
#include "checkpoint/checkpoint_writer.h"
#include "distributed/init_distributed.h"
#include "nn/module.h"
#include "optim/grad_scaler.h"
#include "optim/schedulers/lr_scheduler.h"
#include "tools/train/sharding.h"
#include "tools/train/train_options.h"
#include "train/sharded_optimizer.h"

namespace brisk::train {

// What a checkpoint records about the run besides the training state: a resumed run must
// train the same model on the same data with the same batches, steps and schedule (the
// optimizer's hyperparameters come back with its state). epochs: the length of every schedule
// but the constant one, which a resumed run may extend. world_size: "1" for a run that is not
// distributed; a distributed run shards and orders the data differently.
checkpoint::Metadata run_metadata(const TrainOptions& options, const dist::DistributedContext& run);

// The checkpoint file --resume names: its path, or with "auto" the newest complete checkpoint
// of --save's pattern, none when there is none yet (a job restarted by the launcher before
// its first checkpoint starts afresh).
std::optional<std::string> checkpoint_to_resume(const TrainOptions& options);

// Whether this run saves sharded checkpoints (--checkpoint-format sharded, distributed
// --shard zero2 or full) and so resumes from one by loading only its own rows.
bool saves_sharded_checkpoints(const TrainOptions& options, const dist::DistributedContext& run);

// The checkpoint at `path` (a file, or a sharded checkpoint's directory), after checking that
// it comes from a run like this one (but for its world size: check_resume_world_size). Every
// rank of a distributed run loads the same one; of a sharded checkpoint, with `tensors` false,
// only the run's scalars (load_shards loads the rest).
checkpoint::Checkpoint load_resumed(const std::string& path, const TrainOptions& options,
                                    const dist::DistributedContext& run, bool tensors = true);

// That a distributed checkpoint resumes on this run's world size: its own, or any other when
// both split the `train_examples` evenly (docs/training.md, "Distributed").
// A run in one process (no process group) orders the data otherwise, and resumes only its own.
void check_resume_world_size(const checkpoint::Checkpoint& ckpt, const dist::DistributedContext& run,
                             int64_t train_examples);

// --checkpoint-format sharded, collective: every rank writes its own shards of the training
// state to `directory` (--shard zero2: dist::save_zero2_checkpoint; full:
// dist::save_fsdp_checkpoint), and a resumed run loads its rows of them, on any world size.
void save_shards(const std::string& directory, nn::Module& model, const ShardedTraining& sharding,
                 const checkpoint::Progress& at, uint64_t data_seed, const optim::LRScheduler* scheduler,
                 const checkpoint::Metadata& metadata);
void load_shards(const std::string& directory, nn::Module& model, const ShardedTraining& sharding,
                 optim::LRScheduler* scheduler);

// Rank 0's writer of --save's checkpoints, after removing the temporary files that killed
// writes of them left behind.
std::unique_ptr<checkpoint::CheckpointWriter> make_checkpoint_writer(const TrainOptions& options);

// --resume under --shard zero1/zero2/full: checkpoint::restore's checks (against the optimizer a
// --shard none run would have) and loads, the optimizer state (and under full, the parameters) into each rank's shard.
void restore_sharded(const checkpoint::Checkpoint& ckpt, const TrainOptions& options, nn::Module& model,
                     ShardedOptimizer& sharded, optim::LRScheduler* scheduler);

// The loss scale and growth tracker that an --amp fp16 checkpoint keeps in its metadata.
void restore_grad_scaler(const checkpoint::Checkpoint& ckpt, optim::GradScaler& scaler);

}  // namespace brisk::train
