// Checkpoints: what is saved comes back, and a run resumed from a checkpoint ends bitwise
// where the uninterrupted run ends (CPU), with dropout, shuffling, momentum and Adam's state
// all in play.
#include <catch2/catch.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "checkpoint/checkpoint.h"
#include "checkpoint/safetensors.h"
#include "data/data_loader.h"
#include "data/tensor_dataset.h"
#include "nn/functional.h"
#include "nn/modules/activation.h"
#include "nn/modules/dropout.h"
#include "nn/modules/linear.h"
#include "nn/sequential.h"
#include "optim/adam.h"
#include "optim/schedulers/lr_scheduler.h"
#include "optim/sgd.h"
#include "tests/checkpoint/dtype_samples.h"
#include "tests/checkpoint/file_util.h"

using namespace brisk;
using namespace brisk::checkpoint;
using brisk::checkpoint::testing::scratch_dir;
using brisk::testing::same_bits;
using Catch::Matchers::Contains;

namespace {

constexpr int64_t kBatch = 8;
constexpr int64_t kExamples = 44;  // 6 batches an epoch, the last one short

std::shared_ptr<data::TensorDataset> toy_dataset() {
  Generator gen(1234);
  Tensor x = randn({kExamples, 6}, {}, &gen);
  std::vector<int64_t> labels;
  for (int64_t i = 0; i < kExamples; ++i) labels.push_back(i % 3);
  Tensor y = tensor(labels, {kExamples});
  return std::make_shared<data::TensorDataset>(x, y);
}

// One training run: the model, its optimizer, its shuffling data loader and how far it got.
struct Run {
  nn::Sequential model{nullptr};
  std::unique_ptr<optim::Optimizer> optimizer;
  std::unique_ptr<data::DataLoader> loader;
  Progress progress;
};

// Everything random (the weights, the loader's seed) is drawn from the default generator
// seeded with `seed`, as a training program does; `data_seed` overrides the loader's.
Run make_run(uint64_t seed, bool adam, std::optional<uint64_t> data_seed = std::nullopt) {
  manual_seed(seed);
  Run run;
  run.model = nn::Sequential(nn::Linear(6, 16), nn::ReLU(), nn::Dropout(0.25), nn::Linear(16, 3));
  if (adam) {
    run.optimizer = std::make_unique<optim::Adam>(run.model->parameters(), optim::AdamOptions(0.01));
  } else {
    run.optimizer = std::make_unique<optim::SGD>(run.model->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  }
  auto options = data::DataLoaderOptions().batch_size(kBatch).shuffle(true);
  if (data_seed) options = options.seed(*data_seed);
  run.loader = std::make_unique<data::DataLoader>(toy_dataset(), options);
  return run;
}

// Trains `steps` batches from where `run` stands, skipping the batches of the current epoch
// that were trained before (as a resumed run must).
void train_steps(Run& run, int64_t steps) {
  while (steps > 0) {
    run.loader->set_epoch(run.progress.epoch);
    int64_t index = 0;
    for (auto it = run.loader->begin(); it != run.loader->end() && steps > 0; ++it, ++index) {
      if (index < run.progress.batch) continue;
      run.optimizer->zero_grad();
      nn::functional::cross_entropy(run.model->forward(it->data), it->target).backward();
      run.optimizer->step();
      ++run.progress.batch;
      ++run.progress.step;
      --steps;
    }
    if (run.progress.batch == run.loader->size()) {
      ++run.progress.epoch;
      run.progress.batch = 0;
    }
  }
}

void require_same_parameters(const nn::Module& a, const nn::Module& b) {
  nn::StateDict sa = a.state_dict(), sb = b.state_dict();
  REQUIRE(sa.keys() == sb.keys());
  for (const auto& [name, tensor] : sa) {
    INFO(name);
    REQUIRE(same_bits(tensor, sb[name]));
  }
}

bool same_parameters(const nn::Module& a, const nn::Module& b) {
  nn::StateDict sa = a.state_dict(), sb = b.state_dict();
  for (const auto& [name, tensor] : sa) {
    if (!same_bits(tensor, sb[name])) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("checkpoint: resuming equals the uninterrupted run, bitwise") {
  const bool adam = GENERATE(false, true);
  // Save mid-epoch (k = 9: epoch 1, batch 3) and at an epoch's end (k = 12), then train
  // across the next epoch boundary.
  const int64_t k = GENERATE(9, 12), m = 10;
  CAPTURE(adam, k);
  std::string path = scratch_dir("resume") + "/ckpt.safetensors";

  Run uninterrupted = make_run(7, adam);
  train_steps(uninterrupted, k);
  save_checkpoint(path, capture(*uninterrupted.model, *uninterrupted.optimizer, uninterrupted.progress,
                                uninterrupted.loader->seed()));
  train_steps(uninterrupted, m);

  // A fresh process would start from other random weights: seed differently, then load.
  Checkpoint ckpt = load_checkpoint(path);
  Run resumed = make_run(99, adam, ckpt.data_seed);
  REQUIRE_FALSE(same_parameters(*resumed.model, *uninterrupted.model));
  restore(ckpt, *resumed.model, *resumed.optimizer);
  resumed.progress = ckpt.progress;
  REQUIRE(resumed.progress.step == k);
  train_steps(resumed, m);

  REQUIRE(resumed.progress.epoch == uninterrupted.progress.epoch);
  REQUIRE(resumed.progress.batch == uninterrupted.progress.batch);
  require_same_parameters(*resumed.model, *uninterrupted.model);
  optim::OptimizerState a = resumed.optimizer->state_dict(), b = uninterrupted.optimizer->state_dict();
  REQUIRE(a.param_groups == b.param_groups);
  REQUIRE(a.tensors.size() == b.tensors.size());
  for (const auto& [name, tensor] : a.tensors) REQUIRE(same_bits(tensor, b.tensors.at(name)));
  REQUIRE(default_generator().get_state().offset > ckpt.generator.offset);
}

TEST_CASE("checkpoint: without the generator state the resumed run diverges (dropout draws differ)") {
  std::string path = scratch_dir("resume_control") + "/ckpt.safetensors";
  Run uninterrupted = make_run(7, false);
  train_steps(uninterrupted, 9);
  save_checkpoint(path, capture(*uninterrupted.model, *uninterrupted.optimizer, uninterrupted.progress,
                                uninterrupted.loader->seed()));
  train_steps(uninterrupted, 4);

  Checkpoint ckpt = load_checkpoint(path);
  Run resumed = make_run(99, false, ckpt.data_seed);
  ckpt.generator = default_generator().get_state();  // leave the generator as it is
  restore(ckpt, *resumed.model, *resumed.optimizer);
  resumed.progress = ckpt.progress;
  train_steps(resumed, 4);
  REQUIRE_FALSE(same_parameters(*resumed.model, *uninterrupted.model));
}

TEST_CASE("checkpoint: every field comes back; the file is plain safetensors with the weights under their names") {
  std::string path = scratch_dir("fields") + "/ckpt.safetensors";
  Run run = make_run(3, false);
  train_steps(run, 2);
  Checkpoint saved = capture(*run.model, *run.optimizer, run.progress, run.loader->seed());
  saved.generator = {123, (uint64_t{1} << 63) + 5};
  saved.metadata = {{"model", "toy"}, {"epochs", "3"}};
  save_checkpoint(path, saved);

  Checkpoint loaded = load_checkpoint(path);
  require_same_parameters(*run.model, *run.model);
  REQUIRE(loaded.model.keys() == saved.model.keys());
  for (const auto& [name, tensor] : saved.model) REQUIRE(same_bits(loaded.model[name], tensor));
  REQUIRE(loaded.optimizer_name == "SGD");
  REQUIRE(loaded.optimizer.param_groups == saved.optimizer.param_groups);
  REQUIRE(loaded.optimizer.tensors.size() == 4);  // a momentum buffer per parameter
  for (const auto& [name, tensor] : saved.optimizer.tensors)
    REQUIRE(same_bits(loaded.optimizer.tensors.at(name), tensor));
  REQUIRE(loaded.progress.epoch == 0);
  REQUIRE(loaded.progress.batch == 2);
  REQUIRE(loaded.progress.step == 2);
  REQUIRE(loaded.generator.seed == 123);
  REQUIRE(loaded.generator.offset == (uint64_t{1} << 63) + 5);
  REQUIRE(loaded.data_seed == run.loader->seed());
  REQUIRE(loaded.metadata == saved.metadata);

  Safetensors file = load_safetensors(path);
  REQUIRE(file.tensors.keys() ==
          std::vector<std::string>{"0.weight", "0.bias", "3.weight", "3.bias", "optimizer/state.0.momentum_buffer",
                                   "optimizer/state.1.momentum_buffer", "optimizer/state.2.momentum_buffer",
                                   "optimizer/state.3.momentum_buffer"});
  REQUIRE(file.metadata.at("format") == "pt");
  REQUIRE(file.metadata.at("brisk.progress") == R"({"batch":2,"epoch":0,"step":2})");
}

TEST_CASE("checkpoint: the LR scheduler's state comes back; restore wants a scheduler exactly when one was saved") {
  std::string dir = scratch_dir("scheduler");
  Run run = make_run(3, false);
  optim::StepLR scheduler(*run.optimizer, 2, 0.5);
  for (int i = 0; i < 3; ++i) {
    train_steps(run, 1);
    scheduler.step();
  }
  save_checkpoint(dir + "/with.safetensors",
                  capture(*run.model, *run.optimizer, run.progress, run.loader->seed(), &scheduler));
  Checkpoint loaded = load_checkpoint(dir + "/with.safetensors");
  REQUIRE(loaded.scheduler == scheduler.state_dict());

  Run fresh = make_run(4, false);
  optim::StepLR fresh_scheduler(*fresh.optimizer, 2, 0.5);
  restore(loaded, *fresh.model, *fresh.optimizer, &fresh_scheduler);
  REQUIRE(fresh_scheduler.last_epoch() == 3);
  REQUIRE(fresh_scheduler.get_last_lr() == scheduler.get_last_lr());
  REQUIRE(fresh.optimizer->param_groups()[0].options().get_lr() == 0.05);
  REQUIRE_THROWS_WITH(restore(loaded, *fresh.model, *fresh.optimizer),
                      Contains("LR scheduler: the checkpoint has one's state, and this run has no scheduler"));

  save_checkpoint(dir + "/without.safetensors", capture(*run.model, *run.optimizer, run.progress, 0));
  Checkpoint without = load_checkpoint(dir + "/without.safetensors");
  REQUIRE(without.scheduler.is_null());
  REQUIRE_THROWS_WITH(restore(without, *fresh.model, *fresh.optimizer, &fresh_scheduler),
                      Contains("LR scheduler StepLR: the checkpoint has no scheduler state"));
}

TEST_CASE("checkpoint: misuse is an error naming what is wrong") {
  std::string dir = scratch_dir("misuse");
  Run run = make_run(3, false);
  Checkpoint saved = capture(*run.model, *run.optimizer, run.progress, run.loader->seed());

  SECTION("a safetensors file that is not a checkpoint") {
    save_safetensors(dir + "/weights.safetensors", run.model->state_dict());
    REQUIRE_THROWS_WITH(load_checkpoint(dir + "/weights.safetensors"), Contains("not a Brisk checkpoint"));
  }
  SECTION("reserved metadata keys") {
    saved.metadata["brisk.progress"] = "mine";
    REQUIRE_THROWS_WITH(save_checkpoint(dir + "/c.safetensors", saved), Contains("\"brisk.progress\" is reserved"));
  }
  SECTION("a malformed entry") {
    save_checkpoint(dir + "/c.safetensors", saved);
    checkpoint::Safetensors file = load_safetensors(dir + "/c.safetensors");
    file.metadata["brisk.progress"] = R"({"epoch": 1, "batch": "two", "step": 3})";
    save_safetensors(dir + "/c.safetensors", file.tensors, file.metadata, Checksums::kWrite);
    REQUIRE_THROWS_WITH(load_checkpoint(dir + "/c.safetensors"),
                        Contains("metadata \"brisk.progress\": field \"batch\" has the wrong type"));
  }
  SECTION("another optimizer") {
    Run other = make_run(3, true);
    REQUIRE_THROWS_WITH(restore(saved, *other.model, *other.optimizer),
                        Contains("optimizer: the checkpoint's is SGD, this run's Adam"));
  }
  SECTION("another model") {
    manual_seed(0);
    nn::Sequential other(nn::Linear(6, 16), nn::ReLU(), nn::Linear(16, 3));
    optim::SGD opt(other->parameters(), optim::SGDOptions(0.1));
    REQUIRE_THROWS_WITH(restore(saved, *other, opt), Contains("3.weight"));
  }
}
