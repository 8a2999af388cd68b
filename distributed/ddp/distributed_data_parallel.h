#pragma once
// dist::DistributedDataParallel: data-parallel training of one module over the ranks of a
// process group, as torch.nn.parallel.DistributedDataParallel.
//
//   dist::init_process_group("gloo");                          // from the launcher's environment
//   models::MLP model(models::MLPOptions(784, 10));
//   auto ddp = dist::DistributedDataParallel(model);          // default group; broadcasts rank 0's weights
//   optim::SGD opt(ddp->parameters(), optim::SGDOptions(0.1));
//   for (auto& batch : loader) {                              // each rank its own shard
//     opt.zero_grad();
//     Tensor loss = nn::functional::cross_entropy(ddp->forward(batch.data), batch.target);
//     loss.backward();                                        // returns with averaged gradients
//     opt.step();
//   }
//   ddp->join();                                              // this rank has no inputs left
//
// Without a group, DDP runs over the default group (dist::default_group()), as torch's
// DistributedDataParallel(model) does. Parameters and buffers must be on the group's device
// (ProcessGroup::device()). Construction checks that every rank's parameters have the same
// shapes (naming the rank and the parameter) and broadcasts rank 0's parameters and buffers;
// backward all-reduces the gradients bucket by bucket while it runs (reducer.h). Forwards
// must go through DDP (ddp->forward(x) or ddp(x)): a backward that reaches the parameters
// after a forward of the wrapped module alone is an error naming the parameter and the rank.
// Gradient accumulation (no_sync), uneven inputs (join(), dist::Join) and comm hooks:
// docs/ddp.md.
//
// The example above is compiled and run by tests/distributed/ddp/header_example_test.cc.
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "distributed/ddp/comm_hook.h"
#include "distributed/ddp/comm_overlap.h"
#include "distributed/ddp/options.h"
#include "distributed/ddp/reducer.h"
#include "distributed/join.h"
#include "distributed/process_group.h"
#include "nn/module.h"
#include "nn/module_holder.h"

namespace brisk::dist {

class DistributedDataParallelBase;
namespace detail {
class DDPJoinHook;
}

// Turns gradient synchronization off for its scope (see no_sync()).
class [[nodiscard]] NoSyncGuard {
 public:
  explicit NoSyncGuard(DistributedDataParallelBase& ddp);
  ~NoSyncGuard();
  NoSyncGuard(const NoSyncGuard&) = delete;
  NoSyncGuard& operator=(const NoSyncGuard&) = delete;

 private:
  DistributedDataParallelBase& ddp_;
  bool previous_;
};

// Everything but the typed forward: the wrapped module is the child "module" (so
// state_dict keys start with "module.", as in PyTorch).
class DistributedDataParallelBase : public nn::Module, public Joinable {
 public:
  DistributedDataParallelBase(std::shared_ptr<nn::Module> module, std::shared_ptr<ProcessGroup> group,
                              const DistributedDataParallelOptions& options);

  std::string name() const override { return "DistributedDataParallel"; }

  // nn::Module's forward: the wrapped module's, between pre_forward and post_forward, so that
  // code written for any nn::Module (//train's loop) trains the DDP as it trains the model.
  Tensor forward(const Tensor& input) override;

  // Backwards of forwards run in the guard's scope accumulate gradients locally.
  NoSyncGuard no_sync() { return NoSyncGuard(*this); }
  bool require_backward_grad_sync() const { return require_backward_grad_sync_; }
  void set_require_backward_grad_sync(bool on) { require_backward_grad_sync_ = on; }

  // Replaces the default averaging all-reduce; before the first backward.
  void register_comm_hook(std::shared_ptr<CommHook> hook) { reducer_->register_comm_hook(std::move(hook)); }

  // Called by a rank that has run out of inputs, and by every rank at the end of training.
  // Returns when every rank has joined; throws, naming the ranks, when some rank still runs
  // training forwards (those ranks throw too). Inside a dist::Join, call Join::finish instead.
  void join();

  // Joinable: the hook a dist::Join runs on a rank out of inputs (see join.h).
  std::unique_ptr<JoinHook> join_hook(const JoinOptions& options) override;
  std::shared_ptr<ProcessGroup> join_process_group() const override { return group_; }

  const std::shared_ptr<ProcessGroup>& process_group() const { return group_; }
  const Reducer& reducer() const { return *reducer_; }
  // How much of the last synchronizing backward's all-reduce time was hidden behind its
  // computation (distributed/ddp/comm_overlap.h): a per-step metric for the training log.
  CommOverlap comm_overlap() const { return dist::comm_overlap(reducer_->timeline()); }
  const DistributedDataParallelOptions& options() const { return options_; }

  // The steps around the wrapped forward; DistributedDataParallelImpl::forward calls them.
  void pre_forward();
  void post_forward(const std::vector<Tensor>& outputs);

 private:
  friend class detail::DDPJoinHook;

  // One all-reduce of (still training?, iterations so far) per rank; throws when a rank has
  // joined while another has not.
  void exchange_join_state(bool training);

  // Under a Join, once per training iteration on every rank: which ranks still train and
  // whether their backward synchronizes.
  struct JoinIteration {
    int training = 0;             // ranks still training
    int authoritative_rank = -1;  // the highest of them: buffers are broadcast from it
    bool sync = false;            // their backward all-reduces gradients (not no_sync)
  };
  enum class JoinRole : int64_t { kJoined = 0, kTraining = 1, kTrainingWithSync = 2 };
  JoinIteration exchange_join_iteration(JoinRole role);
  // The divisor of the averaged gradients under a Join (Reducer::set_divisor).
  int join_divisor(const JoinIteration& iteration) const;
  bool will_sync_buffers() const;
  // A joined rank's share of one training iteration of the others (DDPJoinHook::main_hook).
  void shadow_iteration();
  // When every rank has joined: every rank takes the parameters and buffers of the highest
  // rank among the last to join (DDPJoinHook::post_hook).
  void sync_final_model(bool is_last_joiner);

  std::shared_ptr<nn::Module> wrapped_;
  std::shared_ptr<ProcessGroup> group_;
  DistributedDataParallelOptions options_;
  std::unique_ptr<Reducer> reducer_;
  std::vector<Tensor> buffers_;
  bool require_backward_grad_sync_ = true;
  bool require_forward_param_sync_ = true;
  int64_t training_iterations_ = 0;
  bool divide_by_initial_world_size_ = true;
};

namespace detail {
inline void collect_tensors(const Tensor& t, std::vector<Tensor>& out) { out.push_back(t); }
inline void collect_tensors(const std::vector<Tensor>& ts, std::vector<Tensor>& out) {
  out.insert(out.end(), ts.begin(), ts.end());
}
template <typename... T>
void collect_tensors(const std::tuple<T...>& tuple, std::vector<Tensor>& out) {
  std::apply([&](const auto&... element) { (collect_tensors(element, out), ...); }, tuple);
}
template <typename A, typename B>
void collect_tensors(const std::pair<A, B>& pair, std::vector<Tensor>& out) {
  collect_tensors(pair.first, out);
  collect_tensors(pair.second, out);
}

// The default group, or an error naming what to call first when there is none.
std::shared_ptr<ProcessGroup> ddp_default_group();
}  // namespace detail

// M: the wrapped module as a holder (models::MLP) or a std::shared_ptr to a module whose
// forward returns a Tensor, a std::vector<Tensor>, or a tuple/pair of those.
template <typename M>
class DistributedDataParallelImpl : public DistributedDataParallelBase {
 public:
  DistributedDataParallelImpl(M module, std::shared_ptr<ProcessGroup> group,
                              const DistributedDataParallelOptions& options = {})
      : DistributedDataParallelBase(nn::detail::module_pointer(module), std::move(group), options),
        module_(std::move(module)) {}
  // Over the default group.
  explicit DistributedDataParallelImpl(M module, const DistributedDataParallelOptions& options = {})
      : DistributedDataParallelImpl(std::move(module), detail::ddp_default_group(), options) {}

  template <typename... Args>
  auto forward(Args&&... args) {
    pre_forward();
    auto output = module_->forward(std::forward<Args>(args)...);
    std::vector<Tensor> outputs;
    detail::collect_tensors(output, outputs);
    post_forward(outputs);
    return output;
  }

  M& module() { return module_; }

 private:
  M module_;
};

template <typename M>
class DistributedDataParallel : public nn::ModuleHolder<DistributedDataParallelImpl<M>> {
 public:
  using nn::ModuleHolder<DistributedDataParallelImpl<M>>::ModuleHolder;
  M& module() const { return this->get()->module(); }
};

template <typename M>
DistributedDataParallel(M) -> DistributedDataParallel<M>;
template <typename M, typename G>
DistributedDataParallel(M, G) -> DistributedDataParallel<M>;
template <typename M, typename G>
DistributedDataParallel(M, G, DistributedDataParallelOptions) -> DistributedDataParallel<M>;

}  // namespace brisk::dist
