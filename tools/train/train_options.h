#pragma once
// The settings of the training program (tools/train/train.cc) and their command-line flags.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace brisk::train {

// --resume auto: the newest complete checkpoint of --save's pattern, else a fresh start.
inline constexpr const char* kResumeAuto = "auto";

struct TrainOptions {
  std::string dataset = "fashion-mnist";  // mnist, fashion-mnist or cifar10 (tools/train/training_data.h)
  std::string data_dir;                   // empty: the dataset's default (default_data_dir)
  std::string model = "lenet";            // a name of models::model_names() (models/registry.h)
  int64_t epochs = 2;
  int64_t batch_size = 64;        // global: examples per optimizer step, split over processes and micro-steps
  std::string optimizer = "sgd";  // or "adamw"
  double lr = 0.05;
  double momentum = 0.9;  // SGD's
  bool nesterov = false;  // SGD's
  double weight_decay = 0.0;
  std::string lr_schedule = "cosine";  // or "onecycle", "constant"
  double warmup_epochs = 0.0;          // of a linear warm-up (onecycle: its rising phase); may be fractional
  double label_smoothing = 0.0;        // of the training loss
  double max_grad_norm = 0.0;          // clip the gradients' total 2-norm to this; 0: no clipping
  int64_t accumulate = 1;              // micro-steps (forward and backward) per optimizer step
  bool sync_bn = false;                // distributed: BatchNorm statistics over all ranks (SyncBatchNorm)
  std::string shard = "none";          // distributed: none, zero1, zero2 or full (tools/train/sharding.h)
  std::string amp = "off";             // mixed precision: "bf16" or "fp16" (autocast; fp16 with a GradScaler)
  bool channels_last = false;          // the model's 4-D parameters channels_last: convolutions run NHWC
  bool cuda_graph = false;             // capture the training step once, replay it (train/graphed_step.h)
  uint64_t seed = 0;
  std::string device = "auto";  // see dist::InitDistributedOptions::device
  // Checkpoints written after every epoch and every checkpoint_every steps, a save pattern
  // ("{epoch}", "{step}" in it: checkpoint/save_pattern.h); empty: none.
  std::string save;
  int64_t checkpoint_every = 0;  // steps between checkpoints within epochs; 0: after each epoch only
  int64_t keep_checkpoints = 0;  // the newest N of --save's checkpoints kept; 0: all
  // "single": one file per checkpoint, written by rank 0; "sharded": one directory, each rank
  // writing its shards (--shard zero2 or full; checkpoint/sharded/)
  std::string checkpoint_format = "single";
  std::string resume;  // checkpoint to continue from, or kResumeAuto; empty: start afresh
  int64_t log_interval = 100;
  std::string metrics_csv = "metrics.csv";
  std::string tensorboard;  // TensorBoard event files written to this directory (tensorboard_log.h); empty: none
  int64_t train_limit = 0;  // first N training examples only; 0: all
  int64_t test_limit = 0;
  int workers = 0;  // data loader threads
  int threads = 0;  // CPU threads of the kernels; 0: OpenMP's default
  // "": distributed when the launcher started several processes (WORLD_SIZE > 1); "auto",
  // "gloo", "nccl": distributed whatever WORLD_SIZE (auto: nccl on CUDA, gloo on the CPU).
  std::string dist_backend;
  // Seconds without a peer's heartbeat before it is named and the job fails (distributed runs:
  // ProcessGroupOptions::heartbeat_timeout); negative: BRISK_HEARTBEAT_TIMEOUT, else 30 s; 0: off.
  double heartbeat_timeout = -1;
  // Seconds a rank may wait in a collective for a live peer that never enters it before the
  // job fails naming that peer (ProcessGroupOptions::stall_timeout: the ranks of this program
  // work in lock step, so a long wait is a bug or a hang); 0: only the heartbeat's warning.
  double stall_timeout = 60;
  std::string profile_steps;                            // "A-B": profile optimizer steps A to B (step_profiler.h)
  std::string profile_trace = "trace_rank{rank}.json";  // each rank's Chrome trace
  // Language models (--model gpt; tools/train/language_model_training.h):
  std::string data_file;          // the text: a file, or a directory of them; empty: data::kDefaultTextPath
  std::string gpt_size = "mini";  // a preset of models::GPTConfig
  int64_t block_size = 0;         // the context, in bytes; 0: the preset's
  int64_t steps_per_epoch = 0;    // 0: as many as one pass over the training bytes takes
  int64_t sample = 0;             // > 0: print this many bytes sampled from --resume's checkpoint, and no training
  std::string prompt = "\n";      // the text --sample continues
  double temperature = 1.0;       // --sample's
  int64_t top_k = 0;              // --sample draws among the k likeliest bytes; 0: among all
  // --model gpt on a (dp, tp, pp) layout of dp * tp * pp processes (parallel_language_model_training.h)
  int dp = 1, tp = 1, pp = 1;
  std::string pp_schedule = "1f1b";  // gpipe, 1f1b, interleaved (two stages per pipeline rank) or zb-h1
  int microbatches = 0;              // per pipeline step; 0: --pp
};

// Registers every flag of TrainOptions on `app`, writing into `options`. A flag given twice
// takes its last value. Values are checked as they are parsed (CLI11 names the flag); what
// depends on several flags is checked by check_train_options.
void add_train_flags(CLI::App& app, TrainOptions& options);

// Raises brisk::Error naming the flags for settings that do not go together: --nesterov
// without momentum or with AdamW, --warmup-epochs not below --epochs, a --batch-size that
// --accumulate does not divide, a --profile-steps that is not A-B, --checkpoint-every or
// --keep-checkpoints without a --save pattern that names their files apart (or with sharded
// checkpoints), --checkpoint-format sharded without --shard zero2 or full, --resume auto
// without --save, --cuda-graph with a setting whose step a replay would get wrong (adamw, fp16,
// --accumulate, a per-step schedule, --shard other than none).
void check_train_options(const TrainOptions& options);
// --model gpt (a language model) without --optimizer or --lr trains with AdamW at lr 1e-3
// (nanoGPT's character-level setting) instead of the image models' SGD at 0.05. After parsing
// `app` (add_train_flags' flags).
void apply_language_model_defaults(const CLI::App& app, TrainOptions& options);
// Raises brisk::Error naming --batch-size when one optimizer step would take more examples
// than the training set (after --train-limit) has.
void check_batch_size(const TrainOptions& options, int64_t train_examples);

}  // namespace brisk::train
