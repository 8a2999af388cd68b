#include "tests/distributed/ddp/scenarios.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>

#include "checkpoint/checkpoint.h"
#include "distributed/ddp/bf16_compress_hook.h"
#include "distributed/ddp/distributed_data_parallel.h"
#include "distributed/host_value_collectives.h"
#include "models/mlp.h"
#include "optim/adam.h"
#include "optim/clip_grad.h"
#include "optim/sgd.h"
#include "tests/distributed/ddp/test_models.h"

namespace brisk::dist::testing {

namespace {

constexpr double kLr = 0.1;
constexpr int kSteps = 3;
constexpr int64_t kB = 4;  // rows per rank and micro-batch

// 105 and 209 bytes: the MLP below gets three buckets.
DistributedDataParallelOptions small_buckets() {
  return DistributedDataParallelOptions().bucket_cap_mb(0.0002).first_bucket_cap_mb(0.0001);
}

DistributedDataParallelOptions bucket_views() { return small_buckets().gradient_as_bucket_view(true); }

models::MLPOptions mlp_options() { return models::MLPOptions(8, 4).hidden({16, 12}); }

// Same weights in every process and thread (the default generator is shared by threads).
void init_weights(nn::Module& module, uint64_t seed) {
  Generator gen(seed);
  NoGradGuard no_grad;
  for (Tensor p : module.parameters()) p.uniform_(-0.5, 0.5, &gen);
}

std::vector<Tensor> state_tensors(const nn::StateDict& state) {
  std::vector<Tensor> out;
  for (const auto& item : state) out.push_back(item.second);
  return out;
}

// With gradient_as_bucket_view every parameter that took part in the last reduction has a
// .grad that shares its bucket's storage (all the gradients of a bucket share one).
void check_bucket_views(const Reducer& reducer) {
  for (const auto& bucket : reducer.bucket_indices()) {
    const Tensor& first = reducer.parameters()[bucket.front()].grad();
    for (size_t index : bucket) {
      const Tensor& grad = reducer.parameters()[index].grad();
      BRISK_CHECK(grad.defined() && first.defined() && grad.storage() == first.storage(),
                  "gradient_as_bucket_view: the .grad of parameter {} is not a view of its bucket", index);
    }
  }
}

// What a step does after backward: clip_grad_norm_ to max_norm (when positive), then the
// optimizer's step. The same recipe trains the DDP replica and the reference.
struct Recipe {
  std::function<std::unique_ptr<optim::Optimizer>(const std::vector<Tensor>&)> optimizer;
  double max_norm = 0;

  std::unique_ptr<optim::Optimizer> make(const std::vector<Tensor>& params) const { return optimizer(params); }
  void update(optim::Optimizer& opt, const std::vector<Tensor>& params) const {
    if (max_norm > 0) optim::clip_grad_norm_(params, max_norm);
    opt.step();
  }
};

Recipe sgd_momentum() {
  return {[](const std::vector<Tensor>& p) {
    return std::make_unique<optim::SGD>(p, optim::SGDOptions(kLr).momentum(0.9));
  }};
}

// The total gradient norms in these scenarios are above 0.5: max_norm 0.2 clips every step.
constexpr double kClipNorm = 0.2;

Recipe sgd_nesterov_clipped() {
  return {[](const std::vector<Tensor>& p) {
            return std::make_unique<optim::SGD>(p,
                                                optim::SGDOptions(kLr).momentum(0.9).nesterov(true).weight_decay(0.01));
          },
          kClipNorm};
}

Recipe adam_clipped() {
  return {[](const std::vector<Tensor>& p) {
            return std::make_unique<optim::Adam>(p, optim::AdamOptions(0.01).amsgrad(true));
          },
          kClipNorm};
}

Recipe adamw() {
  return {[](const std::vector<Tensor>& p) { return std::make_unique<optim::AdamW>(p, optim::AdamWOptions(0.01)); }};
}

// One rank's view of a training run: `step(ddp, s)` runs step s's forwards and backwards.
// zero_grad(false) keeps each .grad tensor (with gradient_as_bucket_view, the bucket's view).
template <typename Net, typename Step>
Outcome train(const std::shared_ptr<ProcessGroup>& group, const Net& reference, const nn::StateDict& init,
              const DistributedDataParallelOptions& options, Step step, bool set_to_none = true,
              const Recipe& recipe = sgd_momentum()) {
  Net model;
  load_perturbed(*model, init, group->rank(), group->device());
  auto ddp = DistributedDataParallel(model, group, options);
  Outcome outcome;
  outcome.initial_buckets = ddp->reducer().bucket_indices();
  auto opt = recipe.make(ddp->parameters());
  for (int s = 0; s < kSteps; ++s) {
    opt->zero_grad(set_to_none);
    step(ddp, s);
    recipe.update(*opt, ddp->parameters());
    if (s == 0) outcome.ready_order = ddp->reducer().ready_order();
  }
  if (options.gradient_as_bucket_view() && !options.find_unused_parameters()) check_bucket_views(ddp->reducer());
  ddp->join();
  outcome.final_buckets = ddp->reducer().bucket_indices();
  nn::StateDict params = model->named_parameters();
  outcome.max_diff = max_abs_diff(params, reference->named_parameters());
  outcome.identical = same_as_rank0(*group, state_tensors(params));
  return outcome;
}

template <typename Net>
void train_reference(Net& reference, const std::function<Tensor(int step)>& loss, bool set_to_none = true,
                     const Recipe& recipe = sgd_momentum()) {
  auto opt = recipe.make(reference->parameters());
  for (int s = 0; s < kSteps; ++s) {
    opt->zero_grad(set_to_none);
    loss(s).backward();
    recipe.update(*opt, reference->parameters());
  }
}

struct Mlp : models::MLP {
  Mlp() : models::MLP(mlp_options()) {}
};

Outcome plain(const std::shared_ptr<ProcessGroup>& group, uint64_t seed,
              const DistributedDataParallelOptions& options = small_buckets(), bool set_to_none = true,
              const Recipe& recipe = sgd_momentum()) {
  const int world = group->size();
  Mlp reference;
  init_weights(*reference, seed);
  const nn::StateDict init = snapshot(*reference);
  std::vector<Batch> data;
  for (int s = 0; s < kSteps; ++s) data.push_back(make_batch(world * kB, {8}, 4, seed + s));
  train_reference(
      reference, [&](int s) { return F::cross_entropy(reference(data[s].x), data[s].y); }, set_to_none, recipe);
  return train(
      group, reference, init, options,
      [&](auto& ddp, int s) {
        Batch mine = data[s].rows(group->rank() * kB, kB).on(group->device());
        F::cross_entropy(ddp->forward(mine.x), mine.y).backward();
      },
      set_to_none, recipe);
}

// Forwards that do not end in a backward of their own, and backwards after the no_sync scope
// of their forward, are legitimate and must not be taken for forwards that went around DDP:
// even steps run an eval-mode forward with gradients on and a forward under no_grad, neither
// followed by a backward, then two training forwards with one backward of both; odd steps
// run a forward under no_sync whose backward runs after the guard has ended, then a
// synchronizing one. Every step's loss is the mean over the rank's rows, as the reference's.
Outcome forward_variants(const std::shared_ptr<ProcessGroup>& group) {
  const int world = group->size();
  Mlp reference;
  init_weights(*reference, 180);
  const nn::StateDict init = snapshot(*reference);
  std::vector<Batch> data;
  for (int s = 0; s < kSteps; ++s) data.push_back(make_batch(world * kB, {8}, 4, 180 + s));
  train_reference(reference, [&](int s) { return F::cross_entropy(reference(data[s].x), data[s].y); });
  return train(group, reference, init, small_buckets(), [&](auto& ddp, int s) {
    Batch mine = data[s].rows(group->rank() * kB, kB).on(group->device());
    Batch first = mine.rows(0, kB / 2);
    Batch second = mine.rows(kB / 2, kB / 2);
    if (s % 2 == 0) {
      ddp->eval();
      ddp->forward(mine.x);
      ddp->train();
      {
        NoGradGuard no_grad;
        ddp->forward(mine.x);
      }
      ((F::cross_entropy(ddp->forward(first.x), first.y) + F::cross_entropy(ddp->forward(second.x), second.y)) * 0.5)
          .backward();
    } else {
      Tensor local;
      {
        auto guard = ddp->no_sync();
        local = F::cross_entropy(ddp->forward(first.x), first.y) * 0.5;
      }
      local.backward();
      (F::cross_entropy(ddp->forward(second.x), second.y) * 0.5).backward();
    }
  });
}

Outcome rebuild(const std::shared_ptr<ProcessGroup>& group) {
  const int world = group->size();
  ReversedNet reference;
  init_weights(*reference, 200);
  const nn::StateDict init = snapshot(*reference);
  std::vector<Batch> data;
  for (int s = 0; s < kSteps; ++s) data.push_back(make_batch(world * kB, {8}, 4, 200 + s));
  train_reference(reference, [&](int s) { return F::cross_entropy(reference(data[s].x), data[s].y); });
  // A zero-byte cap puts every parameter in its own bucket.
  auto options = DistributedDataParallelOptions().bucket_cap_mb(1e-12).first_bucket_cap_mb(1e-12);
  return train(group, reference, init, options, [&](auto& ddp, int s) {
    Batch mine = data[s].rows(group->rank() * kB, kB).on(group->device());
    F::cross_entropy(ddp->forward(mine.x), mine.y).backward();
  });
}

Outcome no_sync(const std::shared_ptr<ProcessGroup>& group) {
  const int world = group->size();
  Mlp reference;
  init_weights(*reference, 300);
  const nn::StateDict init = snapshot(*reference);
  std::vector<Batch> data;  // micro-batch m of rank r: rows (m * world + r) * B
  for (int s = 0; s < kSteps; ++s) data.push_back(make_batch(2 * world * kB, {8}, 4, 300 + s));
  train_reference(reference, [&](int s) { return F::cross_entropy(reference(data[s].x), data[s].y); });
  return train(group, reference, init, small_buckets(), [&](auto& ddp, int s) {
    Batch first = data[s].rows(group->rank() * kB, kB).on(group->device());
    Batch second = data[s].rows((world + group->rank()) * kB, kB).on(group->device());
    {
      auto guard = ddp->no_sync();
      (F::cross_entropy(ddp->forward(first.x), first.y) * 0.5).backward();
    }
    (F::cross_entropy(ddp->forward(second.x), second.y) * 0.5).backward();
  });
}

// BranchNet with the head chosen per (step, micro-batch, rank); all but the last micro-batch
// of a step run under no_sync.
using HeadChoice = std::function<bool(int step, int micro, int rank)>;

Outcome unused(const std::shared_ptr<ProcessGroup>& group, const HeadChoice& use_branch, int micro_batches,
               uint64_t seed, DistributedDataParallelOptions options = small_buckets(), bool set_to_none = true) {
  const int world = group->size();
  BranchNet reference;
  init_weights(*reference, seed);
  const nn::StateDict init = snapshot(*reference);
  std::vector<Batch> data;
  for (int s = 0; s < kSteps; ++s) data.push_back(make_batch(micro_batches * world * kB, {8}, 4, seed + s));
  auto rows = [&](int s, int m, int r) { return data[s].rows((m * world + r) * kB, kB); };
  const double scale = 1.0 / micro_batches;
  train_reference(
      reference,
      [&](int s) {
        Tensor loss;
        for (int m = 0; m < micro_batches; ++m) {
          for (int r = 0; r < world; ++r) {
            Batch b = rows(s, m, r);
            Tensor part = F::cross_entropy(reference->forward(b.x, use_branch(s, m, r)), b.y) * (scale / world);
            loss = loss.defined() ? loss + part : part;
          }
        }
        return loss;
      },
      set_to_none);
  return train(
      group, reference, init, options.find_unused_parameters(true),
      [&](auto& ddp, int s) {
        for (int m = 0; m < micro_batches; ++m) {
          Batch b = rows(s, m, group->rank()).on(group->device());
          std::optional<NoSyncGuard> guard;
          if (m + 1 < micro_batches) guard.emplace(*ddp);
          (F::cross_entropy(ddp->forward(b.x, use_branch(s, m, group->rank())), b.y) * scale).backward();
        }
      },
      set_to_none);
}

Outcome batchnorm(const std::shared_ptr<ProcessGroup>& group) {
  const int world = group->size();
  const int rank = group->rank();
  BatchNormNet reference;
  init_weights(*reference, 500);
  const nn::StateDict init = snapshot(*reference);
  std::vector<Batch> data;
  for (int s = 0; s < kSteps; ++s) data.push_back(make_batch(world * kB, {2, 4, 4}, 4, 500 + s));
  // Each rank normalizes its own rows; rank 0's running statistics are the ones kept.
  train_reference(reference, [&](int s) {
    Batch first = data[s].rows(0, kB);
    Tensor loss = F::cross_entropy(reference(first.x), first.y) * (1.0 / world);
    nn::StateDict kept = snapshot(*reference);
    for (int r = 1; r < world; ++r) {
      Batch b = data[s].rows(r * kB, kB);
      loss = loss + F::cross_entropy(reference(b.x), b.y) * (1.0 / world);
    }
    for (auto& [name, buffer] : reference->named_buffers()) native::copy_(buffer, kept[name]);
    return loss;
  });
  BatchNormNet model;
  load_perturbed(*model, init, rank, group->device());
  {
    NoGradGuard no_grad;
    for (Tensor b : model->buffers()) {
      if (b.is_floating_point()) b.add_(static_cast<double>(rank));
    }
  }
  auto ddp = DistributedDataParallel(model, group, small_buckets());
  optim::SGD opt(ddp->parameters(), optim::SGDOptions(kLr).momentum(0.9));
  for (int s = 0; s < kSteps; ++s) {
    opt.zero_grad();
    Batch mine = data[s].rows(rank * kB, kB).on(group->device());
    F::cross_entropy(ddp->forward(mine.x), mine.y).backward();
    opt.step();
  }
  Outcome outcome;
  nn::StateDict params = model->named_parameters();
  outcome.max_diff = max_abs_diff(params, reference->named_parameters());
  if (rank == 0)
    outcome.max_diff = std::max(outcome.max_diff, max_abs_diff(model->named_buffers(), reference->named_buffers()));
  // One more forward broadcasts rank 0's statistics everywhere.
  ddp->eval();
  {
    NoGradGuard no_grad;
    ddp->forward(data[0].rows(0, kB).on(group->device()).x);
  }
  outcome.identical = same_as_rank0(*group, state_tensors(snapshot(*model)));
  return outcome;
}

Outcome bf16(const std::shared_ptr<ProcessGroup>& group) {
  const int world = group->size();
  Mlp reference;
  init_weights(*reference, 600);
  const nn::StateDict init = snapshot(*reference);
  Batch mine = make_batch(world * kB, {8}, 4, 600).rows(group->rank() * kB, kB).on(group->device());
  std::vector<Tensor> exact, compressed;
  for (bool use_hook : {false, true}) {
    Mlp model;
    load_perturbed(*model, init, group->rank(), group->device());
    auto ddp = DistributedDataParallel(model, group, small_buckets());
    if (use_hook) ddp->register_comm_hook(std::make_shared<BF16CompressHook>(group));
    F::cross_entropy(ddp->forward(mine.x), mine.y).backward();
    for (const Tensor& p : model->parameters()) (use_hook ? compressed : exact).push_back(p.grad());
  }
  Outcome outcome;
  outcome.identical = same_as_rank0(*group, compressed);
  for (size_t i = 0; i < exact.size(); ++i) {
    const Tensor& g = compressed[i];
    outcome.identical =
        outcome.identical && native::equal(native::to(native::to(g, g.device(), kBFloat16), g.device(), kFloat32), g);
    std::vector<float> a = g.to_vector<float>(), b = exact[i].to_vector<float>();
    for (size_t j = 0; j < a.size(); ++j) outcome.max_diff = std::max(outcome.max_diff, double(std::abs(a[j] - b[j])));
  }
  return outcome;
}

// The file of a job's checkpoint, named by rank 0's process id (which every rank receives)
// and the world size, so that jobs and thread worlds never share one.
std::string checkpoint_path(ProcessGroup& group) {
  const char* base = std::getenv("TEST_TMPDIR");
  const int64_t pid = broadcast_values(group, {static_cast<int64_t>(getpid())}, 0)[0];
  return fmt::format("{}/ddp_checkpoint_{}_of_{}.safetensors", base != nullptr ? base : "/tmp", pid, group.size());
}

// Training stopped after kSaved steps and resumed from rank 0's checkpoint (saved from the
// group's device, loaded back onto it by every rank into a fresh replica and optimizer)
// ends where the single-process run that was never interrupted does.
Outcome checkpoint_resume(const std::shared_ptr<ProcessGroup>& group) {
  constexpr int kSaved = 2;
  const int world = group->size();
  const int rank = group->rank();
  const Recipe recipe = adam_clipped();
  Mlp reference;
  init_weights(*reference, 140);
  const nn::StateDict init = snapshot(*reference);
  std::vector<Batch> data;
  for (int s = 0; s < kSteps; ++s) data.push_back(make_batch(world * kB, {8}, 4, 140 + s));
  train_reference(
      reference, [&](int s) { return F::cross_entropy(reference(data[s].x), data[s].y); }, true, recipe);

  auto run_steps = [&](auto& ddp, optim::Optimizer& opt, int from, int to) {
    for (int s = from; s < to; ++s) {
      opt.zero_grad();
      Batch mine = data[s].rows(rank * kB, kB).on(group->device());
      F::cross_entropy(ddp->forward(mine.x), mine.y).backward();
      recipe.update(opt, ddp->parameters());
    }
    ddp->join();
  };
  const std::string path = checkpoint_path(*group);
  {
    Mlp model;
    load_perturbed(*model, init, rank, group->device());
    auto ddp = DistributedDataParallel(model, group, small_buckets());
    auto opt = recipe.make(ddp->parameters());
    run_steps(ddp, *opt, 0, kSaved);
    if (rank == 0) {
      checkpoint::save_checkpoint(path, checkpoint::capture(*model, *opt, {0, kSaved, kSaved}, /*data_seed=*/0));
    }
    group->barrier()->wait();
  }
  // Fresh weights unlike the saved ones on every rank: only the checkpoint restores them.
  Mlp model;
  load_perturbed(*model, init, rank + 1, group->device());
  auto ddp = DistributedDataParallel(model, group, small_buckets());
  auto opt = recipe.make(ddp->parameters());
  checkpoint::restore(checkpoint::load_checkpoint(path), *model, *opt);
  group->barrier()->wait();
  if (rank == 0) std::remove(path.c_str());
  run_steps(ddp, *opt, kSaved, kSteps);
  Outcome outcome;
  nn::StateDict params = model->named_parameters();
  outcome.max_diff = max_abs_diff(params, reference->named_parameters());
  outcome.identical = same_as_rank0(*group, state_tensors(params));
  return outcome;
}

// gradient_as_bucket_view with channels_last convolution weights: their bucket views keep the
// parameters' strides, so every 4-D .grad is channels_last after each backward (nothing
// converts it into the bucket, and the optimizer reads it in the parameter's layout), and the
// replicas train as the reference does.
Outcome bucket_view_channels_last(const std::shared_ptr<ProcessGroup>& group) {
  const int world = group->size();
  ChannelsLastNet reference;
  init_weights(*reference, 190);
  const nn::StateDict init = snapshot(*reference);
  std::vector<Batch> data;
  for (int s = 0; s < kSteps; ++s) data.push_back(make_batch(world * kB, {2, 4, 4}, 4, 190 + s));
  train_reference(reference, [&](int s) { return F::cross_entropy(reference(data[s].x), data[s].y); });
  return train(group, reference, init, bucket_views(), [&](auto& ddp, int s) {
    Batch mine = data[s].rows(group->rank() * kB, kB).on(group->device());
    F::cross_entropy(ddp->forward(mine.x), mine.y).backward();
    for (const auto& [name, p] : ddp->module()->named_parameters()) {
      BRISK_CHECK(p.dim() != 4 || p.grad().is_contiguous(MemoryFormat::ChannelsLast),
                  "bucket_view_channels_last: rank {} step {}: the .grad of {} has strides {}, not channels_last",
                  group->rank(), s, name, p.grad().strides());
    }
  });
}

// The replica's blocks under activation checkpointing, the reference's plain: every
// parameter's hook fires once per backward (the reducer refuses a second), and the replicas
// end where plain single-process training does.
Outcome activation_checkpoint(const std::shared_ptr<ProcessGroup>& group) {
  const int world = group->size();
  CheckpointedNet reference;
  reference->checkpointed = false;
  init_weights(*reference, 180);
  const nn::StateDict init = snapshot(*reference);
  std::vector<Batch> data;
  for (int s = 0; s < kSteps; ++s) data.push_back(make_batch(world * kB, {8}, 4, 180 + s));
  train_reference(reference, [&](int s) { return F::cross_entropy(reference(data[s].x), data[s].y); });
  return train(group, reference, init, small_buckets(), [&](auto& ddp, int s) {
    Batch mine = data[s].rows(group->rank() * kB, kB).on(group->device());
    F::cross_entropy(ddp->forward(mine.x), mine.y).backward();
  });
}

}  // namespace

const std::vector<std::string>& scenario_names() {
  static const std::vector<std::string> names{
      "equivalence", "rebuild", "no_sync",           "unused_per_step",       "unused_per_rank",    "micro_batches",
      "batchnorm",   "bf16",    "bucket_view",       "bucket_view_keep",      "bucket_view_unused", "clip_sgd_nesterov",
      "clip_adam",   "adamw",   "checkpoint_resume", "activation_checkpoint", "forward_variants",
      "bucket_view_channels_last"};
  return names;
}

Outcome run_scenario(const std::string& name, const std::shared_ptr<ProcessGroup>& group) {
  if (name == "equivalence") return plain(group, 100);
  if (name == "rebuild") return rebuild(group);
  if (name == "no_sync") return no_sync(group);
  if (name == "unused_per_step")
    return unused(
        group, [](int step, int, int) { return step % 2 == 1; }, 1, 400);
  if (name == "unused_per_rank") {
    return unused(
        group, [](int step, int, int rank) { return (step + rank) % 2 == 1; }, 1, 410);
  }
  // Rank 0's first micro-batch alone uses `branch`: unused on other ranks and in every
  // synchronizing micro-batch, its gradient must still be averaged at the synchronizing step.
  if (name == "micro_batches") {
    return unused(
        group, [](int, int micro, int rank) { return micro == 0 && rank == 0; }, 2, 420);
  }
  if (name == "batchnorm") return batchnorm(group);
  // gradient_as_bucket_view: .grad set to None between steps, or zeroed in place (the view
  // itself is kept and replaced by autograd's sum); and parameters unused in a whole step,
  // whose zeroed .grad (a view) must survive the reduction of the buffer it views.
  if (name == "bucket_view") return plain(group, 110, bucket_views());
  if (name == "bucket_view_keep") return plain(group, 120, bucket_views(), false);
  if (name == "bucket_view_unused") {
    return unused(
        group, [](int step, int micro, int rank) { return step != 1 && (micro + rank) % 2 == 0; }, 2, 430,
        bucket_views(), false);
  }
  if (name == "bf16") return bf16(group);
  if (name == "clip_sgd_nesterov") return plain(group, 150, small_buckets(), true, sgd_nesterov_clipped());
  if (name == "clip_adam") return plain(group, 160, small_buckets(), true, adam_clipped());
  if (name == "adamw") return plain(group, 170, small_buckets(), true, adamw());
  if (name == "checkpoint_resume") return checkpoint_resume(group);
  if (name == "activation_checkpoint") return activation_checkpoint(group);
  if (name == "forward_variants") return forward_variants(group);
  if (name == "bucket_view_channels_last") return bucket_view_channels_last(group);
  BRISK_FAIL("unknown DDP scenario \"{}\"", name);
}

double scenario_tolerance(const std::string& name) { return name == "bf16" ? 1e-2 : 1e-5; }

void run_error_scenario(const std::string& name, const std::shared_ptr<ProcessGroup>& group) {
  const int rank = group->rank();
  const Device device = group->device();
  if (name == "shape_mismatch") {
    models::MLP model(models::MLPOptions(8, 4).hidden({16, rank == 1 ? 13 : 12}));
    model->to(device);
    auto ddp = DistributedDataParallel(model, group);
  } else if (name == "unused_error") {
    BranchNet model;
    model->to(device);
    auto ddp = DistributedDataParallel(model, group);
    Batch b = make_batch(kB, {8}, 4, 700 + rank).on(device);
    F::cross_entropy(ddp->forward(b.x, false), b.y).backward();
  } else if (name == "uneven") {
    Mlp model;
    model->to(device);
    auto ddp = DistributedDataParallel(model, group);
    const int batches = rank == 1 ? 2 : 3;
    for (int s = 0; s < batches; ++s) {
      Batch b = make_batch(kB, {8}, 4, 800 + s).on(device);
      F::cross_entropy(ddp->forward(b.x), b.y).backward();
    }
    ddp->join();
  } else if (name == "wrapped_forward" || name == "wrapped_forward_rank1") {
    Mlp model;
    model->to(device);
    auto ddp = DistributedDataParallel(model, group);
    for (int s = 0; s < 2; ++s) {
      const bool mistaken = name == "wrapped_forward" || (rank == 1 && s == 1);
      Batch b = make_batch(kB, {8}, 4, 900 + s).on(device);
      F::cross_entropy(mistaken ? model(b.x) : ddp->forward(b.x), b.y).backward();
    }
  } else if (name == "second_backward") {
    Mlp model;
    model->to(device);
    auto ddp = DistributedDataParallel(model, group);
    Batch b = make_batch(kB, {8}, 4, 1000).on(device);
    Tensor loss = F::cross_entropy(ddp->forward(b.x), b.y);
    loss.backward(Tensor(), /*retain_graph=*/true);
    loss.backward();
  } else {
    BRISK_FAIL("unknown DDP error scenario \"{}\"", name);
  }
}

}  // namespace brisk::dist::testing
