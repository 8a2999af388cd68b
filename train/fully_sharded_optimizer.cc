// train::fully_sharded: the ShardedOptimizer of dist::fully_shard (train/sharded_optimizer.h).
#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "distributed/fsdp/clip_grad_norm.h"
#include "distributed/fsdp/full_state_dict.h"
#include "distributed/fsdp/fully_shard.h"
#include "tensor/error.h"
#include "train/sharded_optimizer.h"

namespace brisk::train {
namespace {

// What GradScaler unscales and steps: the optimizer over this rank's shards, whose found-inf
// flags every rank of the units' group agrees on (their max), so that a step one rank's
// shard overflowed is skipped on all.
struct AgreedOverflow {
  optim::Optimizer& optimizer;
  dist::ProcessGroup& group;

  std::vector<Tensor> params() const {
    std::vector<Tensor> out;
    for (const optim::ParamGroup& g : optimizer.param_groups()) out.insert(out.end(), g.params().begin(), g.params().end());
    return out;
  }
  void step() { optimizer.step(); }
  Tensor all_reduce_found_inf(const std::vector<Tensor>& found_inf) const {
    autograd::NoGradGuard no_grad;
    Tensor found = zeros({1}, TensorOptions(kFloat32).device(group.device()));
    for (const Tensor& flag : found_inf) found = found + flag.to(group.device(), kFloat32);
    group.all_reduce(found, dist::ReduceOp::MAX)->wait();
    return found;
  }
};

class FullyShardedOptimizer final : public ShardedOptimizer {
 public:
  FullyShardedOptimizer(nn::Module& model, std::unique_ptr<optim::Optimizer> optimizer, dist::ProcessGroup& group)
      : model_(model), optimizer_(std::move(optimizer)), scaled_{*optimizer_, group} {}

  optim::Optimizer& local_optimizer() override { return *optimizer_; }
  void zero_grad() override { optimizer_->zero_grad(); }
  void clip_grad_norm(double max_norm) override { dist::clip_grad_norm_(model_, max_norm); }
  void unscale(optim::GradScaler& scaler) override { scaler.unscale_(scaled_); }
  void step(optim::GradScaler* scaler) override {
    if (scaler != nullptr) {
      scaler->step(scaled_);
      scaler->update();
    } else {
      optimizer_->step();
    }
  }
  optim::OptimizerState consolidated_state_dict(int to) override {
    return dist::full_optimizer_state_dict(model_, *optimizer_, to);
  }
  void load_state_dict(const optim::OptimizerState& state) override {
    dist::load_full_optimizer_state_dict(model_, *optimizer_, state);
  }
  bool shards_parameters() const override { return true; }
  nn::StateDict full_model_state_dict(nn::Module& model, int to) override { return dist::full_state_dict(model, to); }
  void load_full_model_state_dict(nn::Module& model, const nn::StateDict& state) override {
    dist::load_full_state_dict(model, state);
  }

 private:
  nn::Module& model_;
  std::unique_ptr<optim::Optimizer> optimizer_;
  AgreedOverflow scaled_;
};

}  // namespace

std::unique_ptr<ShardedOptimizer> fully_sharded(nn::Module& model, std::unique_ptr<optim::Optimizer> optimizer) {
  std::vector<dist::FSDPModule> units = dist::fsdp_modules(model);
  BRISK_CHECK(!units.empty(), "fully_sharded: the model holds no fully_shard unit; call fully_shard on it first");
  BRISK_CHECK(optimizer != nullptr, "fully_sharded: no optimizer");
  return std::make_unique<FullyShardedOptimizer>(model, std::move(optimizer), units.front().unit().group());
}

}  // namespace brisk::train
