#include "tools/train/train_options.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "checkpoint/save_pattern.h"
#include "data/byte_text.h"
#include "models/registry.h"
#include "tensor/device.h"
#include "tensor/error.h"
#include "tools/train/sharding.h"
#include "tools/train/step_profiler.h"
#include "tools/train/training_data.h"

namespace brisk::train {
namespace {

// "auto" or a device string (tensor/device.h): CLI11 reports the message of a bad one.
std::string check_device_flag(const std::string& flag) {
  if (flag == "auto") return "";
  try {
    static_cast<void>(Device(flag));
    return "";
  } catch (const Error& e) {
    return fmt::format("{} (or 'auto')", e.what());
  }
}

// The bounds of numeric flags, in place of CLI11's PositiveNumber and NonNegativeNumber: those
// print their upper bound, DBL_MAX, in 309 digits, and an integer flag converts a value past
// its type's range to the largest value without a word. CLI11 puts the flag's name in front of
// the message; a value that is no number at all is left to its conversion error.
template <typename Int>
CLI::Validator integer_at_least(Int lowest, const char* what) {
  return CLI::Validator(
      [lowest, what](const std::string& input) -> std::string {
        Int value = 0;
        auto [end, error] = std::from_chars(input.data(), input.data() + input.size(), value);
        if (error == std::errc::result_out_of_range) {
          return fmt::format("{} is too large; the largest accepted is {}", input, std::numeric_limits<Int>::max());
        }
        if (error != std::errc() || end != input.data() + input.size()) return "";
        return value < lowest ? fmt::format("{} is not {}", input, what) : "";
      },
      what);
}

CLI::Validator number_above(double bound, bool inclusive, const char* what) {
  return CLI::Validator(
      [bound, inclusive, what](const std::string& input) -> std::string {
        char* end = nullptr;
        double value = std::strtod(input.c_str(), &end);
        if (end == input.c_str() || *end != '\0') return "";
        bool fits = std::isfinite(value) && (inclusive ? value >= bound : value > bound);
        return fits ? "" : fmt::format("{} is not {}", input, what);
      },
      what);
}

const CLI::Validator kPositiveInt = integer_at_least<int64_t>(1, "a positive integer");
const CLI::Validator kNonNegativeInt = integer_at_least<int64_t>(0, "a non-negative integer");
const CLI::Validator kNonNegativeInt32 = integer_at_least<int>(0, "a non-negative integer");
const CLI::Validator kPositiveInt32 = integer_at_least<int>(1, "a positive integer");
const CLI::Validator kPositiveNumber = number_above(0, false, "a positive number");
const CLI::Validator kNonNegativeNumber = number_above(0, true, "a non-negative number");

// "mnist: data/mnist, fashion-mnist: /usr/share/datasets/fashion-mnist, ..."
std::string default_data_dirs_help() {
  std::string help;
  for (const std::string& dataset : dataset_names()) {
    help += (help.empty() ? "" : ", ") + dataset + ": " + default_data_dir(dataset);
  }
  return help;
}

// What a replayed step reads on the host stays as it was at capture (docs/cuda_graphs.md).
void check_cuda_graph_options(const TrainOptions& o) {
  BRISK_CHECK(o.optimizer == "sgd",
              "--cuda-graph needs --optimizer sgd: {} reads its step count on the host every step (bias correction), "
              "which a replayed step would not update",
              o.optimizer);
  BRISK_CHECK(o.amp != "fp16",
              "--cuda-graph cannot train with --amp fp16: its GradScaler reads on the host whether the gradients "
              "overflowed, every step (--amp bf16 needs no scaler)");
  BRISK_CHECK(o.accumulate == 1, "--cuda-graph captures one batch a step; got --accumulate {}", o.accumulate);
  BRISK_CHECK(o.shard == "none",
              "--cuda-graph captures a DDP step; --shard {} steps a sharded optimizer, whose collectives it does not "
              "capture",
              o.shard);
  BRISK_CHECK(o.lr_schedule == "constant",
              "--cuda-graph needs --lr-schedule constant: --lr-schedule {} changes the learning rate every step, and "
              "each change is captured anew (correct, but slower than no graph)",
              o.lr_schedule);
}

}  // namespace

void add_train_flags(CLI::App& app, TrainOptions& o) {
  // A flag given twice takes its last value, so that a wrapper's defaults can be overridden
  // (tools/main_job.sh --epochs 1). Help shows each option's default.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)->always_capture_default();
  app.add_option("--dataset", o.dataset,
                 "mnist or fashion-mnist (MNIST-format IDX files), cifar10 (the binary CIFAR-10 files)")
      ->check(CLI::IsMember(dataset_names()));
  app.add_option("--data-dir", o.data_dir,
                 "directory of the dataset's files (default: " + default_data_dirs_help() + ")");
  app.add_option("--model", o.model, "model to train (docs/training.md; CIFAR-10 models take 3x32x32 images)")
      ->check(CLI::IsMember(models::model_names()));
  app.add_option("--epochs", o.epochs, "epochs to train (in total, counting those of a resumed checkpoint)")
      ->check(kPositiveInt);
  app.add_option("--batch-size", o.batch_size,
                 "examples per optimizer step (global: split over the processes and the --accumulate micro-steps)")
      ->check(kPositiveInt);
  app.add_option("--optimizer", o.optimizer, "sgd (torch.optim.SGD) or adamw (torch.optim.AdamW)")
      ->check(CLI::IsMember({"sgd", "adamw"}));
  app.add_option("--lr", o.lr, "learning rate (onecycle: its peak)")->check(kPositiveNumber);
  app.add_option("--momentum", o.momentum, "SGD momentum")->check(CLI::Range(0.0, 1.0));
  app.add_flag("--nesterov", o.nesterov, "SGD with Nesterov momentum");
  app.add_option("--weight-decay", o.weight_decay, "weight decay (SGD: L2 through the gradient; AdamW: decoupled)")
      ->check(kNonNegativeNumber);
  app.add_option("--lr-schedule", o.lr_schedule,
                 "per step: cosine (from --lr down to 0 over all epochs), onecycle (OneCycleLR up to --lr and "
                 "down), constant")
      ->check(CLI::IsMember({"cosine", "onecycle", "constant"}));
  app.add_option("--warmup-epochs", o.warmup_epochs,
                 "epochs (may be fractional) of linear warm-up from 0 to --lr before the schedule; onecycle: its "
                 "rising phase (default there: 30% of the steps)")
      ->check(kNonNegativeNumber);
  app.add_option("--max-grad-norm", o.max_grad_norm,
                 "clip the gradients' total 2-norm to this before each optimizer step (0: no clipping)")
      ->check(kNonNegativeNumber);
  app.add_option("--accumulate", o.accumulate,
                 "micro-steps per optimizer step: gradients of --batch-size / N examples each are accumulated (under "
                 "DDP only the last micro-step all-reduces)")
      ->check(kPositiveInt);
  app.add_flag("--sync-bn", o.sync_bn,
               "distributed: BatchNorm layers normalize with the statistics of the whole global batch "
               "(nn::SyncBatchNorm), so the run equals one process on that batch; without it each rank's own");
  app.add_option("--shard", o.shard,
                 "distributed: what each rank holds of the training state (docs/ddp.md): none (DDP: all of it), "
                 "zero1 (the optimizer state sharded: ZeroRedundancyOptimizer), zero2 (gradients and optimizer "
                 "state sharded: Zero2DataParallel), full (parameters too: fully_shard on the model's blocks); one "
                 "process trains unsharded")
      ->check(CLI::IsMember(shard_modes()));
  app.add_option("--amp", o.amp,
                 "automatic mixed precision: forward and loss under autocast in bf16 or fp16 (matrix products and "
                 "convolutions in 16 bits, float32 parameters); fp16 scales the loss with a GradScaler")
      ->check(CLI::IsMember({"off", "bf16", "fp16"}));
  app.add_flag("--channels-last", o.channels_last,
               "channels_last (NHWC) memory format: the model's 4-D parameters are converted, so its convolutions "
               "and their activations run NHWC end to end (tensor cores' layout on CUDA; docs/tensors.md)");
  app.add_flag("--cuda-graph", o.cuda_graph,
               "capture the training step once as a graph of device work and replay it for every full batch "
               "(CUDA graphs; sim:N too); needs --optimizer sgd, --lr-schedule constant, --accumulate 1, no fp16 "
               "(docs/cuda_graphs.md)");
  app.add_option("--label-smoothing", o.label_smoothing, "label smoothing of the training loss (cross_entropy's)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--seed", o.seed, "seed of the weights and of the data order");
  app.add_option("--device", o.device,
                 "cpu, cuda, cuda:N, sim or sim:N (the simulated device, for tests); auto: cuda when a GPU is "
                 "visible, else cpu. Distributed, cuda and sim take the process's LOCAL_RANK as N")
      ->check(CLI::Validator(check_device_flag, "DEVICE"));
  app.add_option("--save", o.save,
                 "checkpoint file to write (atomically, with checksums) after every epoch and every "
                 "--checkpoint-every steps; {epoch} (epochs done) or {step} (steps done) in the name, one of them, "
                 "keeps one per epoch or step");
  app.add_option("--checkpoint-every", o.checkpoint_every,
                 "also checkpoint every N optimizer steps within epochs, written in the background (0: after "
                 "each epoch only); needs --save with {step}, or without placeholders (one file, replaced)")
      ->check(kNonNegativeInt);
  app.add_option("--keep-checkpoints", o.keep_checkpoints,
                 "keep only the newest N checkpoints of --save, removing older ones (0: all); needs {step} or "
                 "{epoch} in --save")
      ->check(kNonNegativeInt);
  app.add_option("--checkpoint-format", o.checkpoint_format,
                 "single: each checkpoint one file, rank 0 writing the whole state; sharded (--shard zero2 or "
                 "full): each checkpoint a directory (--save names it) where every rank writes only its own shards, "
                 "beside an index (docs/training.md, \"Sharded checkpoints\")")
      ->check(CLI::IsMember({"single", "sharded"}));
  app.add_option("--resume", o.resume,
                 "checkpoint file (or sharded checkpoint directory) to continue training from; auto: the newest "
                 "complete checkpoint of --save's pattern if there is one, else start afresh (for jobs restarted by "
                 "launch --max-restarts)");
  app.add_option("--log-interval", o.log_interval, "batches between progress log lines (when stderr is no terminal)")
      ->check(kPositiveInt);
  app.add_option("--metrics-csv", o.metrics_csv,
                 "per-epoch metrics file (appended to when resuming), charted after every epoch in an SVG next to "
                 "it (its name with .svg)");
  app.add_option("--tensorboard", o.tensorboard,
                 "write TensorBoard event files to this directory: per-step and per-epoch scalars "
                 "(tensorboard --logdir DIR)");
  app.add_option("--train-limit", o.train_limit, "train on the first N examples only (0: all)")->check(kNonNegativeInt);
  app.add_option("--test-limit", o.test_limit, "evaluate on the first N test examples only (0: all)")
      ->check(kNonNegativeInt);
  app.add_option("--workers", o.workers, "data loader threads")->check(kNonNegativeInt32);
  app.add_option("--dist-backend", o.dist_backend,
                 "train distributed (DDP) over this backend; auto: nccl for CUDA devices, gloo otherwise, mpi "
                 "under mpirun without MASTER_ADDR (default: distributed when started by the launcher, srun or "
                 "mpirun with a world size above 1)")
      ->check(CLI::IsMember({"auto", "gloo", "nccl", "mpi"}));
  app.add_option("--heartbeat-timeout", o.heartbeat_timeout,
                 "seconds without a rank's heartbeat (stopped, hung, dead) before the others name it and fail "
                 "(0: off; default: BRISK_HEARTBEAT_TIMEOUT, else 30)")
      ->check(kNonNegativeNumber)
      ->default_str("");
  app.add_option("--stall-timeout", o.stall_timeout,
                 "seconds a rank may wait in a collective for a live peer that has not entered it (an infinite "
                 "loop, a deadlock) before the job fails naming that peer (0: only a warning)")
      ->check(kNonNegativeNumber);
  app.add_option("--threads", o.threads, "CPU kernel threads (0: OpenMP's default)")->check(kNonNegativeInt32);
  app.add_option("--profile-steps", o.profile_steps,
                 "A-B: profile optimizer steps A to B (from 0) and write a Chrome trace per rank (docs/profiler.md)");
  app.add_option("--profile-trace", o.profile_trace, "trace file of --profile-steps; {rank} is replaced by the rank");
  app.add_option("--data-file", o.data_file,
                 std::string("--model gpt: the text to train on, any file (its bytes are the tokens) or a directory "
                             "of them (default: ") +
                     data::kDefaultTextPath + ", Debian's fortunes)");
  app.add_option("--gpt-size", o.gpt_size, "--model gpt: the preset of its sizes (models/gpt_config.h)")
      ->check(CLI::IsMember(models::GPTConfig::preset_names()));
  app.add_option("--block-size", o.block_size, "--model gpt: the context in bytes (0: the preset's)")
      ->check(kNonNegativeInt);
  app.add_option("--steps-per-epoch", o.steps_per_epoch,
                 "--model gpt: optimizer steps between evaluations (0: a pass over the training bytes' worth)")
      ->check(kNonNegativeInt);
  app.add_option("--sample", o.sample,
                 "--model gpt: print this many bytes sampled from --resume's checkpoint after --prompt, and exit")
      ->check(kNonNegativeInt);
  app.add_option("--prompt", o.prompt, "--sample: the text to continue");
  app.add_option("--temperature", o.temperature, "--sample: the logits' divisor (lower: more conservative)")
      ->check(kPositiveNumber);
  app.add_option("--top-k", o.top_k, "--sample: draw among the k likeliest bytes (0: among all)")
      ->check(kNonNegativeInt);
  app.add_option("--dp", o.dp, "--model gpt: data-parallel replicas (the job's world size is --dp x --tp x --pp)")
      ->check(kPositiveInt32);
  app.add_option("--tp", o.tp,
                 "--model gpt: tensor-parallel ranks per stage (they split the heads, the MLP and "
                 "the vocabulary)")
      ->check(kPositiveInt32);
  app.add_option("--pp", o.pp, "--model gpt: pipeline stages' ranks (they split the blocks)")->check(kPositiveInt32);
  app.add_option("--pp-schedule", o.pp_schedule,
                 "--model gpt: the pipeline schedule: gpipe, 1f1b, interleaved (two stages per --pp rank), or zb-h1 "
                 "(1f1b with the backward split, the weight gradients filling the bubble)")
      ->check(CLI::IsMember({"gpipe", "1f1b", "interleaved", "zb-h1"}));
  app.add_option("--microbatches", o.microbatches,
                 "--model gpt: microbatches of each data-parallel rank's batch per pipeline step (0: --pp)")
      ->check(kNonNegativeInt32);
}

void apply_language_model_defaults(const CLI::App& app, TrainOptions& o) {
  if (!models::is_language_model(o.model)) return;
  if (app.count("--optimizer") == 0) o.optimizer = "adamw";
  if (app.count("--lr") == 0) o.lr = 1e-3;
}

void check_batch_size(const TrainOptions& o, int64_t train_examples) {
  BRISK_CHECK(o.batch_size <= train_examples,
              "--batch-size {} is larger than the training set ({} examples{}); give at most {}", o.batch_size,
              train_examples, o.train_limit > 0 ? ", --train-limit" : "", train_examples);
}

void check_train_options(const TrainOptions& o) {
  BRISK_CHECK(o.sample == 0 || !o.resume.empty(),
              "--sample prints text sampled from a checkpoint: give it with --resume CHECKPOINT");
  BRISK_CHECK(o.sample == 0 || models::is_language_model(o.model),
              "--sample needs a language model (--model gpt), "
              "not --model {}",
              o.model);
  BRISK_CHECK((o.dp == 1 && o.tp == 1 && o.pp == 1 && o.microbatches == 0) || models::is_language_model(o.model),
              "--dp, --tp, --pp and --microbatches lay out --model gpt; --model {} trains data-parallel over every "
              "process",
              o.model);
  BRISK_CHECK(!o.nesterov || o.optimizer == "sgd", "--nesterov is SGD's; --optimizer {} has no such option",
              o.optimizer);
  BRISK_CHECK(!o.nesterov || o.momentum > 0, "--nesterov needs --momentum above 0, got {}", o.momentum);
  BRISK_CHECK(o.warmup_epochs < o.epochs, "--warmup-epochs {} must be below --epochs {}", o.warmup_epochs, o.epochs);
  BRISK_CHECK(o.batch_size % o.accumulate == 0,
              "--batch-size {} does not split into --accumulate {} equal micro-batches", o.batch_size, o.accumulate);
  parse_step_range(o.profile_steps);
  if (o.cuda_graph) check_cuda_graph_options(o);
  BRISK_CHECK(o.resume != kResumeAuto || !o.save.empty(),
              "--resume auto resumes from the newest checkpoint of --save's pattern, but no --save is given");
  BRISK_CHECK((o.checkpoint_every == 0 && o.keep_checkpoints == 0) || !o.save.empty(),
              "--checkpoint-every and --keep-checkpoints need --save, the checkpoints' file name");
  BRISK_CHECK(o.checkpoint_format != "sharded" || o.shard == "zero2" || o.shard == "full",
              "--checkpoint-format sharded saves each rank's shards of a --shard zero2 or full run; this run is "
              "--shard {}",
              o.shard);
  BRISK_CHECK(o.checkpoint_format != "sharded" || o.keep_checkpoints == 0,
              "--keep-checkpoints removes checkpoint files; with --checkpoint-format sharded each checkpoint is a "
              "directory, which it does not remove");
  if (o.save.empty()) return;
  const checkpoint::Placeholder placeholder = checkpoint::save_pattern_placeholder(o.save);
  BRISK_CHECK(o.checkpoint_every == 0 || placeholder != checkpoint::Placeholder::kEpoch,
              "--checkpoint-every {}: --save '{}' names checkpoints by epoch only, so the ones within an epoch would "
              "replace the last epoch's; put {{step}} in it (e.g. ckpt-{{step}}.safetensors)",
              o.checkpoint_every, o.save);
  BRISK_CHECK(o.keep_checkpoints == 0 || placeholder != checkpoint::Placeholder::kNone,
              "--keep-checkpoints {}: --save '{}' names one file, which each checkpoint replaces; put {{step}} or "
              "{{epoch}} in it",
              o.keep_checkpoints, o.save);
}

}  // namespace brisk::train
