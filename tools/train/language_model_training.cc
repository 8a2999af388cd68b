#include "tools/train/language_model_training.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "autograd/grad_mode.h"
#include "checkpoint/checkpoint.h"
#include "data/byte_text.h"
#include "models/gpt.h"
#include "models/gpt_generate.h"
#include "models/registry.h"
#include "optim/clip_grad.h"
#include "tensor/error.h"
#include "tensor/generator.h"
#include "tools/train/language_model_eval.h"
#include "tools/train/optimization.h"
#include "tools/train/parallel_language_model_training.h"
#include "tools/train/resolve_path.h"
#include "tools/train/run_checkpoints.h"

namespace brisk::train {
namespace {

// The image models' flags that these loops do not implement, refused rather than ignored
// (`layout`: a distributed run, which shards the optimizer with --shard zero1 on dp).
void check_language_model_flags(const TrainOptions& o, bool layout) {
  std::vector<std::string> given;
  if (o.amp != "off") given.push_back("--amp");
  if (o.cuda_graph) given.push_back("--cuda-graph");
  if (o.channels_last) given.push_back("--channels-last");
  if (o.sync_bn) given.push_back("--sync-bn");
  if (o.shard != "none" && !(layout && o.shard == "zero1")) given.push_back("--shard");
  if (o.label_smoothing > 0) given.push_back("--label-smoothing");
  if (o.train_limit > 0) given.push_back("--train-limit");
  if (!o.tensorboard.empty()) given.push_back("--tensorboard");
  if (!o.profile_steps.empty()) given.push_back("--profile-steps");
  BRISK_CHECK(given.empty(),
              "--model {} does not train with {} (docs/training.md, \"GPT: a language model over bytes\")", o.model,
              fmt::join(given, ", "));
}

// --sample: the checkpoint's model continues --prompt; the text goes to stdout.
int sample_text(const TrainOptions& options, Device device) {
  const std::string path = resolve_path(options.resume);
  checkpoint::Checkpoint ckpt = checkpoint::load_checkpoint(path);
  auto entry = [&](const char* key) {
    auto it = ckpt.metadata.find(key);
    BRISK_CHECK(it != ckpt.metadata.end(), "{}: not a checkpoint of --model gpt (no \"{}\" entry)", path, key);
    return it->second;
  };
  BRISK_CHECK(entry("model") == options.model, "{} holds --model {}, not {}", path, entry("model"), options.model);
  std::shared_ptr<models::GPTImpl> model =
      make_gpt(options, gpt_config(entry("gpt_size"), std::stoll(entry("block_size"))));
  model->load_state_dict(ckpt.model);
  model->to(device);
  model->eval();
  std::vector<int64_t> prompt(options.prompt.begin(), options.prompt.end());
  for (int64_t& token : prompt) token = static_cast<uint8_t>(token);  // bytes, not signed chars
  Generator generator(options.seed);
  const std::vector<int64_t> text =
      models::generate(*model, prompt, options.sample,
                       models::SamplingOptions().temperature(options.temperature).top_k(options.top_k), generator);
  std::string bytes(text.begin(), text.end());
  std::fwrite(bytes.data(), 1, bytes.size(), stdout);
  std::fputc('\n', stdout);
  return 0;
}

}  // namespace

int run_language_model(const TrainOptions& options, const dist::DistributedContext& run) {
  check_language_model_flags(options, run.enabled);
  if (run.enabled && options.sample == 0) return run_parallel_language_model(options, run);
  BRISK_CHECK(options.dp * options.tp * options.pp == 1,
              "--dp {} --tp {} --pp {} lay out {} processes; this run is one process (start it with tools/launch "
              "--nproc-per-node {})",
              options.dp, options.tp, options.pp, options.dp * options.tp * options.pp,
              options.dp * options.tp * options.pp);
  const Device device = run.device;
  if (options.sample > 0) return sample_text(options, device);

  const std::string text_path = resolve_path(options.data_file.empty() ? data::kDefaultTextPath : options.data_file);
  const data::ByteText text = data::ByteText::from_path(text_path);
  const models::GPTConfig config = gpt_config(options.gpt_size, options.block_size);
  const int64_t T = config.block_size(), micro_batch = options.batch_size / options.accumulate;
  BRISK_CHECK(static_cast<int64_t>(text.train().size()) > T,
              "{}: the training part ({} bytes) is shorter than one window of block_size + 1 = {} bytes", text_path,
              text.train().size(), T + 1);
  std::shared_ptr<models::GPTImpl> model = make_gpt(options, config);
  model->to(device);
  std::unique_ptr<optim::Optimizer> optimizer = make_optimizer(options, model->parameters());
  const int64_t steps =
      options.steps_per_epoch > 0
          ? options.steps_per_epoch
          : std::max<int64_t>(1, static_cast<int64_t>(text.train().size()) / (options.batch_size * T));
  std::unique_ptr<optim::LRScheduler> scheduler = make_scheduler(options, *optimizer, steps);

  checkpoint::Progress progress;
  if (std::optional<std::string> path = checkpoint_to_resume(options)) {
    checkpoint::Checkpoint resumed = load_resumed(*path, options, run);
    checkpoint::restore(resumed, *model, *optimizer, scheduler.get());
    progress = resumed.progress;
    spdlog::info("resumed from {}: epoch {}, step {}", *path, progress.epoch + 1, progress.batch);
  }
  spdlog::info("gpt {} ({} parameters: {} layers, {} heads, {} wide, {} bytes of context) on {}; {} training and {} "
               "held-out bytes of {}",
               options.gpt_size, config.parameter_count(), config.n_layer(), config.n_head(), config.n_embd(), T,
               device.str(), text.train().size(), text.held_out().size(), text_path);
  spdlog::info("{} {}, batch {} x {} bytes{}, {} steps an epoch, epochs {} to {}", optimizer->name(),
               optimizer->param_groups()[0].options().to_json().dump(), options.batch_size, T,
               options.accumulate > 1 ? fmt::format(" in {} micro-batches", options.accumulate) : "", steps,
               progress.epoch + 1, options.epochs);

  std::unique_ptr<checkpoint::CheckpointWriter> writer;
  if (!options.save.empty()) writer = make_checkpoint_writer(options);
  auto save = [&](const checkpoint::Progress& at) {
    checkpoint::Checkpoint ckpt = checkpoint::capture(*model, *optimizer, at, /*data_seed=*/0, scheduler.get());
    ckpt.metadata = run_metadata(options, run);
    ckpt.metadata["gpt_size"] = options.gpt_size;
    ckpt.metadata["block_size"] = std::to_string(T);
    writer->save(ckpt);
  };
  const std::vector<Tensor> parameters = model->parameters();
  model->train();
  while (progress.epoch < options.epochs) {
    const auto start = std::chrono::steady_clock::now();
    double loss_sum = 0;
    int64_t loss_count = 0;
    for (; progress.batch < steps; ++progress.batch) {
      optimizer->zero_grad();
      double step_loss = 0;
      for (int64_t micro = 0; micro < options.accumulate; ++micro) {
        data::TokenBatch batch = data::random_windows(text.train(), micro_batch, T, default_generator());
        Tensor loss = models::gpt_loss(model->forward(batch.inputs.to(device)), batch.targets.to(device));
        (loss / static_cast<double>(options.accumulate)).backward();
        step_loss += loss.item<double>() / static_cast<double>(options.accumulate);
      }
      if (options.max_grad_norm > 0) optim::clip_grad_norm_(parameters, options.max_grad_norm);
      optimizer->step();
      if (scheduler) scheduler->step();
      ++progress.step;
      loss_sum += step_loss;
      ++loss_count;
      if ((progress.batch + 1) % options.log_interval == 0) {
        spdlog::info("epoch {}/{} step {}/{}: train loss {:.4f} ({:.3f} bits per byte)", progress.epoch + 1,
                     options.epochs, progress.batch + 1, steps, step_loss, bits_per_byte(step_loss));
      }
      if (writer && options.checkpoint_every > 0 && progress.step % options.checkpoint_every == 0 &&
          progress.batch + 1 < steps) {
        save({progress.epoch, progress.batch + 1, progress.step});
      }
    }
    const double held_out = held_out_loss(*model, text.held_out(), options.test_limit, device);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double train_loss = loss_count > 0 ? loss_sum / static_cast<double>(loss_count) : NAN;
    log_epoch(progress.epoch, options.epochs, train_loss, held_out, loss_count, options.batch_size * T, seconds);
    ++progress.epoch;
    progress.batch = 0;
    if (writer) save(progress);
  }
  if (writer) writer->wait();
  return 0;
}

}  // namespace brisk::train
