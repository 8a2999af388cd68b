#pragma once
// dist::Zero2DataParallel and dist::Zero2Optimizer: ZeRO stage 2 (DeepSpeed's
// zero_optimization stage 2). Every rank holds the full parameters and runs the full forward
// and backward on its own batch, as under DistributedDataParallel, but gradients and
// optimizer state are sharded: backward reduce-scatters the gradients bucket by bucket while
// it runs, each rank keeping only its rows of every parameter's averaged gradient; the
// optimizer steps only those rows and then all-gathers the updated parameters.
//
//   dist::init_process_group("gloo");                          // from the launcher's environment
//   models::MLP model(models::MLPOptions(784, 10));
//   auto zero2 = dist::Zero2DataParallel(model);              // default group; broadcasts rank 0's weights
//   dist::Zero2Optimizer opt(*zero2, [](std::vector<Tensor> shards) {
//     return std::make_unique<optim::Adam>(shards, optim::AdamOptions(1e-3));
//   });
//   optim::StepLR scheduler(opt.local_optimizer(), 10, 0.5);  // the same on every rank
//   for (auto& batch : loader) {                              // each rank its own part
//     opt.zero_grad();
//     Tensor loss = nn::functional::cross_entropy(zero2->forward(batch.data), batch.target);
//     loss.backward();                                        // this rank's shard of the averaged gradients
//     opt.clip_grad_norm_(1.0);                               // optional: the norm of all shards together
//     opt.step();                                             // steps the shards, all-gathers the parameters
//   }
//   scheduler.step();
//
// Each parameter is split along dim 0 as torch.chunk splits it (parameter_shards.h): with N
// ranks, rank r owns rows [r*c, (r+1)*c) of a parameter of d rows, c = ceil(d / N), so the
// last ranks may own fewer rows or none. The wrapped module is the child "module", so
// state_dict keys are DistributedDataParallel's ("module.<name>") and the model's state_dict
// is the full parameters on every rank. Construction checks that every rank's parameters and
// buffers have the same shapes (the error names the rank and the parameter) and broadcasts
// rank 0's. Parameters and buffers must be on the group's device, and stay where they are
// once wrapped (move the model first). Forwards must go through the wrapper.
//
// After a synchronizing backward no parameter has a .grad: the averaged gradient rows are the
// .grad of the shards (Zero2Optimizer::params()). So step with a Zero2Optimizer, not with an
// optimizer over the parameters, which would find no gradient. Gradient accumulation
// (no_sync: full-size .grad until the synchronizing backward), clip_grad_norm_,
// optim::GradScaler and state dicts: docs/ddp.md "ZeRO stage 2".
//
// The example above is compiled and run by tests/distributed/zero2/header_example_test.cc.
#include <memory>
#include <utility>
#include <vector>

#include "distributed/ddp/comm_overlap.h"
#include "distributed/process_group.h"
#include "distributed/zero2/gradient_reduce_scatter.h"
#include "distributed/zero2/parameter_shards.h"
#include "distributed/zero2/zero2_optimizer.h"
#include "distributed/zero2/zero2_options.h"
#include "nn/module.h"
#include "nn/module_holder.h"

namespace brisk::dist {

class Zero2DataParallelBase;

namespace detail {
// The default group, or an error naming what to call first when there is none.
std::shared_ptr<ProcessGroup> zero2_default_group();
}  // namespace detail

// Turns gradient synchronization off for its scope (Zero2DataParallelBase::no_sync()).
class [[nodiscard]] Zero2NoSyncGuard {
 public:
  explicit Zero2NoSyncGuard(Zero2DataParallelBase& model);
  ~Zero2NoSyncGuard();
  Zero2NoSyncGuard(const Zero2NoSyncGuard&) = delete;
  Zero2NoSyncGuard& operator=(const Zero2NoSyncGuard&) = delete;

 private:
  Zero2DataParallelBase& model_;
  bool previous_;
};

// Everything but the typed forward.
class Zero2DataParallelBase : public nn::Module {
 public:
  Zero2DataParallelBase(std::shared_ptr<nn::Module> module, std::shared_ptr<ProcessGroup> group,
                        const Zero2Options& options);

  std::string name() const override { return "Zero2DataParallel"; }

  // The wrapped module's forward between pre_forward and post_forward, so that code written
  // for any nn::Module trains the wrapper as it trains the model.
  Tensor forward(const Tensor& input) override;

  // Backwards of forwards run in the guard's scope accumulate full-size gradients locally;
  // the next synchronizing backward reduce-scatters their sum with its own.
  Zero2NoSyncGuard no_sync() { return Zero2NoSyncGuard(*this); }
  bool require_backward_grad_sync() const { return require_backward_grad_sync_; }
  void set_require_backward_grad_sync(bool on) { require_backward_grad_sync_ = on; }

  const std::shared_ptr<ProcessGroup>& process_group() const { return group_; }
  // The trained parameters (those that require a gradient), their split and this rank's shards.
  const ParameterShards& shards() const { return *shards_; }
  const GradientReduceScatter& reducer() const { return *reducer_; }
  // How much of the last synchronizing backward's reduce-scatter time was hidden behind it.
  CommOverlap comm_overlap() const { return dist::comm_overlap(reducer_->timeline()); }
  const Zero2Options& options() const { return options_; }

  // The steps around the wrapped forward; Zero2DataParallelImpl::forward calls them.
  void pre_forward();
  void post_forward();

 private:
  std::shared_ptr<nn::Module> wrapped_;
  std::shared_ptr<ProcessGroup> group_;
  Zero2Options options_;
  std::unique_ptr<ParameterShards> shards_;
  std::unique_ptr<GradientReduceScatter> reducer_;
  std::vector<Tensor> buffers_;
  bool require_backward_grad_sync_ = true;
  bool require_forward_param_sync_ = true;
};

// M: the wrapped module as a holder (models::MLP) or a std::shared_ptr to a module.
template <typename M>
class Zero2DataParallelImpl : public Zero2DataParallelBase {
 public:
  Zero2DataParallelImpl(M module, std::shared_ptr<ProcessGroup> group, const Zero2Options& options = {})
      : Zero2DataParallelBase(nn::detail::module_pointer(module), std::move(group), options),
        module_(std::move(module)) {}
  // Over the default group.
  explicit Zero2DataParallelImpl(M module, const Zero2Options& options = {})
      : Zero2DataParallelImpl(std::move(module), detail::zero2_default_group(), options) {}

  template <typename... Args>
  auto forward(Args&&... args) {
    pre_forward();
    auto output = module_->forward(std::forward<Args>(args)...);
    post_forward();
    return output;
  }

  M& module() { return module_; }

 private:
  M module_;
};

template <typename M>
class Zero2DataParallel : public nn::ModuleHolder<Zero2DataParallelImpl<M>> {
 public:
  using nn::ModuleHolder<Zero2DataParallelImpl<M>>::ModuleHolder;
  M& module() const { return this->get()->module(); }
};

template <typename M>
Zero2DataParallel(M) -> Zero2DataParallel<M>;
template <typename M, typename G>
Zero2DataParallel(M, G) -> Zero2DataParallel<M>;
template <typename M, typename G>
Zero2DataParallel(M, G, Zero2Options) -> Zero2DataParallel<M>;

}  // namespace brisk::dist
