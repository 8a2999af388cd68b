#include "tests/distributed/zero2/zero2_scenarios.h"

#include <cmath>
#include <functional>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "autograd/grad_mode.h"
#include "distributed/nn/sync_batchnorm.h"
#include "distributed/zero2/zero2_data_parallel.h"
#include "models/cifar_resnet.h"
#include "models/mlp.h"
#include "models/resnet18.h"
#include "optim/adam.h"
#include "optim/clip_grad.h"
#include "optim/grad_scaler.h"
#include "optim/sgd.h"
#include "tests/distributed/ddp/test_models.h"
#include "tests/distributed/testing/optimizer_state_compare.h"

namespace brisk::dist::testing {
namespace {

constexpr int64_t kB = 2;  // rows per rank and micro-batch
// How far from the reference a float64 run may end; a float32 run, as far as the DDP tests'.
constexpr double kTolerance = 1e-12;
constexpr double kFloat32Tolerance = 1e-5;
constexpr int kOverflowStep = 1;

// conv (its weight channels_last, 3 rows) -> relu -> linear (2 rows) -> times a 0-d scale.
struct ShapesNetImpl : nn::Module {
  ShapesNetImpl() {
    conv = register_module("conv", nn::Conv2d(nn::Conv2dOptions(2, 3, 3).padding(1)));
    fc = register_module("fc", nn::Linear(48, 2));
    scale = register_parameter("scale", native::ones({}));
  }
  Tensor forward(const Tensor& x) override { return fc(F::flatten(F::relu(conv(x)), 1)) * scale; }
  nn::Conv2d conv{nullptr};
  nn::Linear fc{nullptr};
  Tensor scale;
};
BRISK_MODULE(ShapesNet);

using Model = std::shared_ptr<nn::Module>;

struct ModelKind {
  std::function<Model()> make;
  Shape input;  // of one row
  int64_t classes;
  bool channels_last = false;
  bool eval = false;     // BatchNorm with its running statistics: a row's output is its own
  bool sync_bn = false;  // the replica's BatchNorm over the group (SyncBatchNorm), in training mode
  std::function<void(nn::Module&)> as_reference;  // not null: makes the reference of a replica-only feature
  DType dtype = kFloat64;
  double tolerance() const { return dtype == kFloat64 ? kTolerance : kFloat32Tolerance; }
};

ModelKind model_kind(const std::string& name) {
  if (name == "shapes") return {[] { return Model(ShapesNet().ptr()); }, {2, 4, 4}, 2, true};
  if (name == "resnet20") return {[] { return Model(models::resnet20(4).ptr()); }, {3, 8, 8}, 4, false, true};
  if (name == "resnet18") {
    return {[] { return Model(models::ResNet18(models::ResNet18Options().num_classes(4).width(4)).ptr()); },
            {3, 8, 8},
            4,
            false,
            true};
  }
  if (name == "resnet20_sync_bn") {
    return {[] { return Model(models::resnet20(4).ptr()); }, {3, 8, 8}, 4, false, false, true};
  }
  if (name == "checkpointed") {
    // The replica's blocks under nn::utils::checkpoint, recomputed in backward.
    return {[] { return Model(CheckpointedNet().ptr()); },
            {8},
            4,
            false,
            false,
            false,
            [](nn::Module& m) { dynamic_cast<CheckpointedNetImpl&>(m).checkpointed = false; }};
  }
  auto mlp = [] { return Model(models::MLP(models::MLPOptions(8, 4).hidden({16, 12})).ptr()); };
  if (name == "mlp_float32") return {mlp, {8}, 4, false, false, false, nullptr, kFloat32};
  return {mlp, {8}, 4};
}

// The same values on every rank, whatever the modules drew at construction.
void initialize(nn::Module& module, uint64_t seed) {
  Generator gen(seed);
  NoGradGuard no_grad;
  for (Tensor p : module.parameters()) {
    if (p.dim() == 0) {
      p.uniform_(0.9, 1.1, &gen);
    } else {
      const double fan_in = static_cast<double>(p.numel() / p.size(0));
      p.uniform_(-1.0 / std::sqrt(fan_in), 1.0 / std::sqrt(fan_in), &gen);
    }
  }
}

void prepare(nn::Module& module, const ModelKind& kind) {
  module.to(kind.dtype);
  if (kind.channels_last) module.to(MemoryFormat::ChannelsLast);
  if (kind.eval) module.eval();
}

Zero2OptimizerFactory factory_of(const std::string& optimizer) {
  if (optimizer == "adam") {
    return [](std::vector<Tensor> p) { return std::make_unique<optim::Adam>(p, optim::AdamOptions(0.01)); };
  }
  return [](std::vector<Tensor> p) { return std::make_unique<optim::SGD>(p, optim::SGDOptions(0.05).momentum(0.9)); };
}

// One rank's side of a scenario: the reference and the ZeRO-2 replica side by side.
struct Trial {
  Trial(const std::shared_ptr<ProcessGroup>& g, const std::string& model, const std::string& optimizer, int steps,
        int micro_batches, uint64_t seed)
      : group(g), kind(model_kind(model)), reference(kind.make()), replica(kind.make()), zero2(nullptr) {
    initialize(*reference, seed);
    prepare(*reference, kind);
    if (kind.as_reference) kind.as_reference(*reference);
    plain = factory_of(optimizer)(reference->parameters());
    prepare(*replica, kind);
    load_perturbed(*replica, snapshot(*reference), g->rank(), g->device());
    if (kind.sync_bn) nn::convert_sync_batchnorm(*replica, g);
    zero2 = Zero2DataParallel<Model>(replica, g);
    opt = std::make_unique<Zero2Optimizer>(*zero2, factory_of(optimizer));
    for (int s = 0; s < steps; ++s) {
      data.emplace_back();
      for (int m = 0; m < micro_batches; ++m) {
        Batch batch = make_batch(g->size() * kB, kind.input, kind.classes, seed + 100 * s + m);
        data.back().push_back({native::to(batch.x, kCPU, kind.dtype), batch.y});
      }
    }
  }

  std::shared_ptr<ProcessGroup> group;
  ModelKind kind;
  Model reference, replica;
  std::unique_ptr<optim::Optimizer> plain;
  Zero2DataParallel<Model> zero2;
  std::unique_ptr<Zero2Optimizer> opt;
  std::vector<std::vector<Batch>> data;  // [step][micro-batch], world * kB rows each
};

// What ZeRO-2 promises of memory after a synchronizing backward.
std::string check_sharded_gradients(const Zero2DataParallelBase& zero2) {
  const ParameterShards& shards = zero2.shards();
  const int rank = zero2.process_group()->rank();
  std::string failure;
  for (size_t i = 0; i < shards.params().size(); ++i) {
    if (shards.params()[i].grad().defined()) failure += fmt::format("'{}' kept a full-size .grad; ", shards.name(i));
    const ParameterShards::Place& at = shards.place(i);
    const Shape expected = shards.buckets()[at.bucket].layout.shard_shape(at.slot, rank);
    const Tensor& grad = shards.shard(i).grad();
    if (!grad.defined() || grad.sizes() != expected || shards.shard(i).sizes() != expected) {
      failure += fmt::format("the shard of '{}' is {} with gradient {}; ", shards.name(i), shards.shard(i).describe(),
                             grad.defined() ? grad.describe() : "undefined");
    }
  }
  if (zero2.reducer().held_bucket_numel() != 0) {
    failure += fmt::format("the reducer holds {} gradient elements; ", zero2.reducer().held_bucket_numel());
  }
  return failure;
}

// Bitwise comparison of this rank's tensors with rank 0's, in their own dtype.
bool identical_to_rank0(ProcessGroup& group, const std::vector<Tensor>& tensors) {
  std::vector<Tensor> flat;
  for (const Tensor& t : tensors) flat.push_back(native::reshape(native::contiguous(t), {t.numel()}));
  Tensor mine = native::cat(flat, 0);
  Tensor theirs = native::clone(mine);
  group.broadcast(theirs, 0)->wait();
  return native::equal(mine, theirs);
}

// The parameters, and the buffers (BatchNorm's running statistics) where any.
std::string compare_parameters(Trial& trial, const nn::Module& net, const std::string& when) {
  const double diff = std::max(max_abs_diff(net.named_parameters(), trial.reference->named_parameters()),
                               max_abs_diff(net.named_buffers(), trial.reference->named_buffers()));
  const bool identical = identical_to_rank0(*trial.group, net.parameters());
  if (diff < trial.kind.tolerance() && identical) return "";
  return fmt::format("{}: max |zero2 - reference| {:.3g}, identical to rank 0: {}; ", when, diff, identical);
}

struct Recipe {
  std::string model = "mlp";
  std::string optimizer = "sgd";
  int steps = 4;
  int micro_batches = 1;  // all but the last under no_sync
  double clip = 0.0;      // > 0: clip_grad_norm_ to it
  bool scaler = false;
};

// Fills the last row of the first parameter's gradient with inf: a row the last rank owns.
void overflow_last_row(const Tensor& grad) {
  NoGradGuard no_grad;
  const Tensor rows = grad.dim() == 0 ? native::view(grad, {1}) : grad;
  if (rows.size(0) == 0) return;
  Tensor last = native::narrow(rows, 0, rows.size(0) - 1, 1);
  native::fill_(last, std::numeric_limits<double>::infinity());
}

std::string train_steps(Trial& t, const Recipe& recipe, int from, int to, optim::GradScaler* reference_scaler,
                        optim::GradScaler* zero2_scaler) {
  std::string failure;
  const int rank = t.group->rank();
  const bool last_rank = rank == t.group->size() - 1;
  for (int s = from; s < to; ++s) {
    // The reference: one process, every rank's rows.
    t.plain->zero_grad();
    for (const Batch& all : t.data[s]) {
      Tensor loss = F::cross_entropy(t.reference->forward(all.x), all.y);
      (reference_scaler ? reference_scaler->scale(loss) : loss).backward();
    }
    // ZeRO-2: this rank's rows.
    t.opt->zero_grad();
    for (size_t m = 0; m < t.data[s].size(); ++m) {
      Batch mine = t.data[s][m].rows(rank * kB, kB).on(t.group->device());
      auto backward = [&] {
        Tensor loss = F::cross_entropy(t.zero2->forward(mine.x), mine.y);
        (zero2_scaler ? zero2_scaler->scale(loss) : loss).backward();
      };
      if (m + 1 < t.data[s].size()) {
        auto no_sync = t.zero2->no_sync();
        backward();
        for (const Tensor& p : t.zero2->shards().params()) {
          if (!p.grad().defined() || p.grad().sizes() != p.sizes()) {
            failure += fmt::format("step {}: no full-size gradient accumulated under no_sync; ", s);
            break;
          }
        }
      } else {
        backward();
      }
    }
    failure += check_sharded_gradients(*t.zero2);
    if (reference_scaler && s == kOverflowStep) {
      overflow_last_row(t.reference->parameters()[0].grad());
      if (last_rank) overflow_last_row(t.zero2->shards().shard(0).grad());
    }
    if (recipe.clip > 0) {
      const double expected = optim::clip_grad_norm_(t.reference->parameters(), recipe.clip).item<double>();
      const double got = t.opt->clip_grad_norm_(recipe.clip).item<double>();
      if (!(std::abs(got - expected) < t.kind.tolerance()) || got <= recipe.clip) {
        failure += fmt::format("step {}: total norm {} but the reference's is {}; ", s, got, expected);
      }
    }
    if (reference_scaler) {
      const bool reference_stepped = reference_scaler->step(*t.plain);
      const bool stepped = zero2_scaler->step(*t.opt);
      reference_scaler->update();
      zero2_scaler->update();
      if (stepped != reference_stepped || stepped == (s == kOverflowStep)) {
        failure += fmt::format("step {}: stepped {} (the reference {}); ", s, stepped, reference_stepped);
      }
      if (zero2_scaler->get_scale() != reference_scaler->get_scale()) {
        failure += fmt::format("step {}: scale {} (the reference's {}); ", s, zero2_scaler->get_scale(),
                               reference_scaler->get_scale());
      }
    } else {
      t.plain->step();
      t.opt->step();
    }
    failure += compare_parameters(t, *t.replica, fmt::format("after step {}", s));
    if (!failure.empty()) return failure;
  }
  return failure;
}

std::string run_recipe(const Recipe& recipe, const std::shared_ptr<ProcessGroup>& group, uint64_t seed) {
  Trial trial(group, recipe.model, recipe.optimizer, recipe.steps, recipe.micro_batches, seed);
  std::optional<optim::GradScaler> reference_scaler, zero2_scaler;
  if (recipe.scaler) {
    reference_scaler.emplace(optim::GradScalerOptions().init_scale(1024.0).growth_interval(2));
    zero2_scaler.emplace(optim::GradScalerOptions().init_scale(1024.0).growth_interval(2));
  }
  return train_steps(trial, recipe, 0, recipe.steps, reference_scaler ? &*reference_scaler : nullptr,
                     zero2_scaler ? &*zero2_scaler : nullptr);
}

std::string state_dict_round_trip(const std::shared_ptr<ProcessGroup>& group) {
  constexpr int kSaved = 3, kSteps = 5;
  const Recipe recipe{"shapes", "adam", kSteps};
  Trial trial(group, recipe.model, recipe.optimizer, kSteps, 1, 700);
  std::string failure = train_steps(trial, recipe, 0, kSaved, nullptr, nullptr);
  for (const auto& [name, tensor] : trial.zero2->state_dict()) {
    if (name.rfind("module.", 0) != 0) failure += fmt::format("model state_dict key {}; ", name);
  }
  const int to = group->size() - 1;  // not rank 0, to exercise the gather's root
  trial.opt->consolidate_state_dict(to);

  // A new Zero2Optimizer, over a copy of the model, loading the plain optimizer's state.
  Model copy = trial.kind.make();
  prepare(*copy, trial.kind);
  copy->load_state_dict(snapshot(*trial.replica));
  copy->to(group->device());
  auto copy_zero2 = Zero2DataParallel<Model>(copy, group);
  Zero2Optimizer loaded(*copy_zero2, factory_of("adam"));
  loaded.load_state_dict(trial.plain->state_dict());

  // On `to`: a plain Adam over another copy continuing from the consolidated state.
  Model single = trial.kind.make();
  prepare(*single, trial.kind);
  single->load_state_dict(snapshot(*trial.replica));
  optim::Adam single_opt(single->parameters(), optim::AdamOptions(0.01));
  if (group->rank() == to) {
    optim::OptimizerState consolidated = trial.opt->state_dict();
    failure += compare_optimizer_states(consolidated, trial.plain->state_dict(), kTolerance);
    single_opt.load_state_dict(consolidated);
  } else {
    try {
      trial.opt->state_dict();
      failure += "state_dict() on a rank that did not consolidate returned; ";
    } catch (const Error& e) {
      if (std::string(e.what()).find(fmt::format("rank {}: state_dict() on a rank that did not", group->rank())) ==
          std::string::npos) {
        failure += std::string("unexpected error: ") + e.what() + "; ";
      }
    }
  }

  // The reference and the original continue together; then the loaded ZeRO-2 copy and, on
  // `to`, the plain Adam, on the same batches, end where the reference did.
  failure += train_steps(trial, recipe, kSaved, kSteps, nullptr, nullptr);
  for (int s = kSaved; s < kSteps; ++s) {
    const Batch& all = trial.data[s][0];
    Batch mine = all.rows(group->rank() * kB, kB).on(group->device());
    loaded.zero_grad();
    F::cross_entropy(copy_zero2->forward(mine.x), mine.y).backward();
    loaded.step();
    single_opt.zero_grad();
    F::cross_entropy(single->forward(all.x), all.y).backward();
    single_opt.step();
  }
  failure += compare_parameters(trial, *copy, "a Zero2Optimizer that loaded the reference's state");
  if (group->rank() == to) {
    const double diff = max_abs_diff(single->named_parameters(), trial.reference->named_parameters());
    if (!(diff < kTolerance)) failure += fmt::format("a plain Adam from the consolidated state: {:.3g}; ", diff);
  }
  return failure;
}

}  // namespace

const std::vector<std::string>& zero2_scenario_names() {
  static const std::vector<std::string> names{"mlp_sgd",      "mlp_adam",      "mlp_adam_float32", "shapes_adam",
                                              "resnet20_sgd", "resnet20_adam", "resnet20_sync_bn", "resnet18_adam",
                                              "checkpointed", "no_sync",       "clip",             "scaler",
                                              "state_dict"};
  return names;
}

std::string run_zero2_scenario(const std::string& name, const std::shared_ptr<ProcessGroup>& group) {
  if (name == "mlp_sgd") return run_recipe({"mlp", "sgd"}, group, 100);
  if (name == "mlp_adam") return run_recipe({"mlp", "adam"}, group, 200);
  if (name == "mlp_adam_float32") return run_recipe({"mlp_float32", "adam"}, group, 250);
  if (name == "shapes_adam") return run_recipe({"shapes", "adam"}, group, 300);
  if (name == "resnet20_sgd") return run_recipe({"resnet20", "sgd", 3}, group, 400);
  if (name == "resnet20_adam") return run_recipe({"resnet20", "adam", 3}, group, 500);
  if (name == "resnet20_sync_bn") return run_recipe({"resnet20_sync_bn", "sgd", 3}, group, 550);
  if (name == "resnet18_adam") return run_recipe({"resnet18", "adam", 3}, group, 555);
  if (name == "checkpointed") return run_recipe({"checkpointed", "adam"}, group, 560);
  if (name == "no_sync") return run_recipe({"shapes", "sgd", 3, 3}, group, 600);
  if (name == "clip") return run_recipe({"mlp", "sgd", 4, 1, 0.05}, group, 800);
  if (name == "scaler") return run_recipe({"mlp", "sgd", 4, 1, 0.0, true}, group, 900);
  if (name == "state_dict") return state_dict_round_trip(group);
  return "unknown scenario " + name;
}

}  // namespace brisk::dist::testing
