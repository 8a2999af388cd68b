// train_cifar: the training program of docs/guide.md. A small CNN on CIFAR-10 (the binary
// version's files) with augmentation, SGD and a per-step cosine schedule, gradient clipping
// and accumulation, a checkpoint after every epoch (--save DIR: DIR/epoch-N.ckpt) that --resume
// continues from; started by a launcher (tools/launch --nproc-per-node 2 train_cifar ...) it
// trains data-parallel.
//
//   train_cifar --data DIR [--epochs 10] [--batch-size 128] [--accumulate 1] [--save DIR] [--resume FILE]
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "brisk/brisk.h"

using namespace brisk;

// Two conv-BN-ReLU-pool stages and a linear classifier: [N, 3, 32, 32] -> [N, 10].
class NetImpl : public nn::Module {
 public:
  NetImpl() {
    conv1 = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(3, 16, 3).padding(1).bias(false)));
    bn1 = register_module("bn1", nn::BatchNorm2d(16));
    conv2 = register_module("conv2", nn::Conv2d(nn::Conv2dOptions(16, 32, 3).padding(1).bias(false)));
    bn2 = register_module("bn2", nn::BatchNorm2d(32));
    fc = register_module("fc", nn::Linear(32 * 8 * 8, 10));
  }
  Tensor forward(const Tensor& x) override {
    Tensor h = nn::functional::max_pool2d(relu(bn1(conv1(x))), 2);  // [N, 16, 16, 16]
    h = nn::functional::max_pool2d(relu(bn2(conv2(h))), 2);         // [N, 32, 8, 8]
    return fc(h.flatten(1));
  }
  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  nn::Linear fc{nullptr};
};
BRISK_MODULE(Net);

struct Options {
  std::string data, save, resume;
  int64_t epochs = 10, batch_size = 128, accumulate = 1;
};

// --name value pairs.
Options parse(int argc, char** argv) {
  std::map<std::string, std::string> flags;
  for (int i = 1; i + 1 < argc; i += 2) flags[argv[i]] = argv[i + 1];
  Options o;
  o.data = flags["--data"];
  o.save = flags["--save"];
  o.resume = flags["--resume"];
  if (flags.count("--epochs")) o.epochs = std::stoll(flags["--epochs"]);
  if (flags.count("--batch-size")) o.batch_size = std::stoll(flags["--batch-size"]);
  if (flags.count("--accumulate")) o.accumulate = std::stoll(flags["--accumulate"]);
  BRISK_CHECK(!o.data.empty() && argc % 2 == 1, "usage: train_cifar --data DIR [--epochs N] [--batch-size N] "
                                                "[--accumulate N] [--save DIR] [--resume FILE]");
  return o;
}

void train_cifar(const Options& options) {
  // The launcher's RANK, WORLD_SIZE and LOCAL_RANK, or a process of its own.
  const dist::DistributedContext ctx = dist::init_distributed();
  manual_seed(0);

  // Data: the CIFAR-10 files, augmented for training, normalized with the set's statistics.
  const std::vector<double> mean{0.4914, 0.4822, 0.4465}, stdev{0.2470, 0.2435, 0.2616};
  auto train_set = std::make_shared<data::TransformDataset>(
      std::make_shared<data::CIFAR10>(options.data, /*train=*/true),
      data::Compose(
          {data::ToTensor(), data::RandomCrop(32, 4), data::RandomHorizontalFlip(), data::Normalize(mean, stdev)}));
  auto test_set =
      std::make_shared<data::TransformDataset>(std::make_shared<data::CIFAR10>(options.data, false),
                                               data::Compose({data::ToTensor(), data::Normalize(mean, stdev)}));
  // Each rank trains on its share of every epoch, in batches of its part of the global batch,
  // and evaluates its share of the test set.
  const int64_t batch = train::per_rank_batch_size(options.batch_size, ctx.world_size, options.accumulate);
  auto sampler = std::make_shared<data::DistributedSampler>(train_set->size(), ctx.world_size, ctx.rank,
                                                            data::DistributedSamplerOptions().seed(1));
  data::DataLoader train_loader(train_set, sampler, data::DataLoaderOptions().batch_size(batch).num_workers(2));
  data::DataLoader test_loader(train::evaluation_shard(test_set, ctx), data::DataLoaderOptions().batch_size(500));

  Net model;
  model->to(ctx.device);
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(0.05).momentum(0.9).nesterov(true).weight_decay(5e-4));
  const int64_t steps_per_epoch = train::steps_per_epoch(train_loader.size(), options.accumulate);
  optim::CosineAnnealingLR scheduler(optimizer, options.epochs * steps_per_epoch);  // per step
  // What must not change between a run and its resumption, besides what restore() checks.
  const checkpoint::Metadata run = {{"batch_size", std::to_string(options.batch_size)},
                                    {"accumulate", std::to_string(options.accumulate)},
                                    {"world_size", std::to_string(ctx.world_size)}};

  checkpoint::Progress progress;
  if (!options.resume.empty()) {
    checkpoint::Checkpoint ckpt = checkpoint::load_checkpoint(options.resume);
    checkpoint::check_metadata(ckpt, run);
    checkpoint::restore(ckpt, *model, optimizer, &scheduler);  // stops, naming it, if anything differs
    progress = ckpt.progress;
  }
  // Data-parallel when launched: gradients are averaged over the ranks during backward.
  std::shared_ptr<nn::Module> trained = model.ptr();
  if (ctx.enabled) trained = train::wrap_ddp(trained, ctx);
  // Micro-batches but the last of a step accumulate locally; clipping at a norm of 5.
  const train::StepOptions step{/*label_smoothing=*/0.0, /*max_grad_norm=*/5.0, options.accumulate};

  while (progress.epoch < options.epochs) {
    // Each rank's sums, added over the ranks: the same on every rank.
    const train::Metrics epoch = train::all_reduce_metrics(
        train::train_epoch(*trained, optimizer, &scheduler, train_loader, ctx.device, progress, nullptr, step), ctx);
    train::broadcast_buffers(*model, ctx);  // every rank evaluates rank 0's BatchNorm statistics
    const train::Metrics test = train::all_reduce_metrics(train::evaluate(*model, test_loader, ctx.device), ctx);
    if (!ctx.is_main()) continue;  // rank 0 speaks and writes for the job
    std::printf("epoch %lld/%lld: train loss %.4f, test loss %.4f, test accuracy %.2f%%\n",
                static_cast<long long>(progress.epoch), static_cast<long long>(options.epochs), epoch.loss(),
                test.loss(), 100 * test.accuracy());
    std::fflush(stdout);
    if (!options.save.empty()) {
      checkpoint::Checkpoint ckpt = checkpoint::capture(*model, optimizer, progress, train_loader.seed(), &scheduler);
      ckpt.metadata = run;
      std::filesystem::create_directories(options.save);
      checkpoint::save_checkpoint(options.save + "/epoch-" + std::to_string(progress.epoch) + ".ckpt", ckpt);
    }
  }
  dist::finish_distributed(ctx);
}

int main(int argc, char** argv) {
  try {
    train_cifar(parse(argc, argv));
  } catch (const Error& e) {  // Brisk's errors say what was wrong: a missing file, a bad checkpoint
    std::fprintf(stderr, "train_cifar: %s\n", e.what());
    return 1;
  }
  return 0;
}
