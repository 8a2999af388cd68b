#include "train/sharded_optimizer.h"

#include "optim/clip_grad.h"

namespace brisk::train {
namespace {

template <typename Sharded>
class ShardedOptimizerOf final : public ShardedOptimizer {
 public:
  explicit ShardedOptimizerOf(std::unique_ptr<Sharded> optimizer) : optimizer_(std::move(optimizer)) {}

  optim::Optimizer& local_optimizer() override { return optimizer_->local_optimizer(); }
  void zero_grad() override { optimizer_->zero_grad(); }
  void clip_grad_norm(double max_norm) override {
    if constexpr (std::is_same_v<Sharded, dist::Zero2Optimizer>) {
      optimizer_->clip_grad_norm_(max_norm);  // from the shards
    } else {
      optim::clip_grad_norm_(optimizer_->params(), max_norm);  // every rank holds every averaged gradient
    }
  }
  void unscale(optim::GradScaler& scaler) override { scaler.unscale_(*optimizer_); }
  void step(optim::GradScaler* scaler) override {
    if (scaler != nullptr) {
      scaler->step(*optimizer_);
      scaler->update();
    } else {
      optimizer_->step();
    }
  }
  optim::OptimizerState consolidated_state_dict(int to) override {
    optimizer_->consolidate_state_dict(to);
    return optimizer_->rank() == to ? optimizer_->state_dict() : optim::OptimizerState{};
  }
  void load_state_dict(const optim::OptimizerState& state) override { optimizer_->load_state_dict(state); }
  // Every rank holds the whole model.
  bool shards_parameters() const override { return false; }
  nn::StateDict full_model_state_dict(nn::Module& model, int) override { return model.state_dict(); }
  void load_full_model_state_dict(nn::Module& model, const nn::StateDict& state) override {
    model.load_state_dict(state);
  }

 private:
  std::unique_ptr<Sharded> optimizer_;
};

}  // namespace

std::unique_ptr<ShardedOptimizer> sharded(std::unique_ptr<dist::ZeroRedundancyOptimizer> optimizer) {
  return std::make_unique<ShardedOptimizerOf<dist::ZeroRedundancyOptimizer>>(std::move(optimizer));
}

std::unique_ptr<ShardedOptimizer> sharded(std::unique_ptr<dist::Zero2Optimizer> optimizer) {
  return std::make_unique<ShardedOptimizerOf<dist::Zero2Optimizer>>(std::move(optimizer));
}

}  // namespace brisk::train
