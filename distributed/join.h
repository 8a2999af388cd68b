#pragma once
// dist::Join: training on uneven inputs, as torch.distributed.algorithms.Join. Ranks that run
// out of inputs "join": they shadow the collectives that the ranks still training issue, so
// that those finish their data instead of waiting forever for the joined ranks.
//
//   auto ddp = dist::DistributedDataParallel(model);
//   dist::ZeroRedundancyOptimizer opt(ddp->parameters(), factory);
//   {
//     dist::Join join({*ddp, opt});          // as `with Join([ddp, opt]):`
//     for (auto& batch : loader) {           // a different number of batches on each rank
//       opt.zero_grad();
//       loss(ddp->forward(batch.data), batch.target).backward();
//       opt.step();
//     }
//     join.finish();                         // shadow the others until every rank is done
//   }
//
// The protocol (PyTorch's): the first Joinable of the Join announces, once per iteration
// (DDP: in every training forward; ZeRO: in step()), that this rank still trains, with one
// all-reduce (notify_join_context). A rank in finish() takes part in the same all-reduce
// announcing that it has joined; while some rank still trains, it runs every Joinable's
// JoinHook::main_hook, which issues the collectives of one training iteration (DDP: the
// gradient all-reduces, with zeros; ZeRO: the optimizer step's broadcasts). When every rank
// has joined, each runs JoinHook::post_hook(is_last_joiner) (DDP: every rank takes the model
// of the last rank to join).
//
// JoinOptions:
//   enable(false)                      Join does nothing (notify and finish return at once).
//   throw_on_early_termination(true)   when the first rank joins, every rank throws instead:
//                                      the joined ones "rank r exhausted all inputs", the
//                                      others naming the joined ranks.
//   divide_by_initial_world_size       read by DDP's hook: gradients are summed over the ranks
//                                      still training and divided by the whole world size
//                                      (true, PyTorch's default: joined ranks count as zeros)
//                                      or by the number of ranks still training (false).
//
// Every rank of the group must create the Join over the same Joinables (with the same
// options) and call finish() once it has no inputs left. The Joinables must share one process
// group, and the first must be the one whose collectives come first in an iteration (DDP
// before ZeRO, as in PyTorch): its announcement opens each iteration. A Join that goes out of
// scope without finish() only detaches from its Joinables: after an exception in the loop,
// as PyTorch's __exit__ does when one is raised; without one, it also warns on stderr (the
// ranks still training would wait until their collective timeout).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "distributed/process_group.h"
#include "tensor/arg.h"

namespace brisk::dist {

struct JoinOptions {
  BRISK_ARG(bool, enable) = true;
  BRISK_ARG(bool, throw_on_early_termination) = false;
  BRISK_ARG(bool, divide_by_initial_world_size) = true;
};

// What a Join has told a Joinable (all false outside a Join).
struct JoinConfig {
  bool enable = false;
  bool throw_on_early_termination = false;
  // Only the first Joinable of a Join announces the iterations (notify_join_context).
  bool is_first_joinable = false;
};

// What a joined rank runs on behalf of one Joinable.
class JoinHook {
 public:
  virtual ~JoinHook() = default;
  // Issues the collectives of one training iteration, as a rank still training would.
  virtual void main_hook() {}
  // Once every rank has joined. `is_last_joiner`: this rank ran no main_hook, i.e. it was
  // among the last ranks to join.
  virtual void post_hook(bool is_last_joiner) { (void)is_last_joiner; }
};

// A class whose collectives a joined rank can shadow (DistributedDataParallel,
// ZeroRedundancyOptimizer).
class Joinable {
 public:
  virtual ~Joinable() = default;
  virtual std::unique_ptr<JoinHook> join_hook(const JoinOptions& options) = 0;
  // The group whose collectives the hooks shadow; Join's own all-reduces run over it.
  virtual std::shared_ptr<ProcessGroup> join_process_group() const = 0;
  const JoinConfig& join_config() const { return join_config_; }

 private:
  friend class Join;
  JoinConfig join_config_;
};

class Join {
 public:
  // Attaches to the Joinables (the first of them announces iterations); throws when the
  // list is empty or the Joinables use different process groups.
  Join(std::vector<std::reference_wrapper<Joinable>> joinables, const JoinOptions& options = {});
  ~Join();
  Join(const Join&) = delete;
  Join& operator=(const Join&) = delete;

  // This rank has no inputs left: runs the main hooks while some rank still trains, then
  // the post hooks. With throw_on_early_termination, throws instead once any rank has joined.
  void finish();

  // Called by a Joinable at the start of each iteration: when it is the first Joinable of an
  // enabled Join, announces that this rank still trains (one all-reduce over its group); else
  // communicates nothing. With throw_on_early_termination, throws once any rank has joined,
  // naming the joined ranks.
  static void notify_join_context(Joinable& joinable);

 private:
  std::vector<std::reference_wrapper<Joinable>> joinables_;
  std::vector<std::unique_ptr<JoinHook>> hooks_;
  JoinOptions options_;
  std::shared_ptr<ProcessGroup> group_;
  bool finished_ = false;
};

}  // namespace brisk::dist
