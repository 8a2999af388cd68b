#pragma once
// dist::Join: training on uneven inputs, as torch.distributed.algorithms.Join. Ranks that run
// out of inputs "join": they shadow the collectives of the ranks still training, so that those
// finish their data instead of waiting forever for the joined ranks.
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
// Every rank creates the Join over the same Joinables (sharing one process group, the one
// whose collectives come first in an iteration first: DDP before ZeRO) with the same options,
// and calls finish() once it has no inputs left. The protocol: docs/ddp.md "Uneven inputs".
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "distributed/process_group.h"
#include "tensor/arg.h"

namespace brisk::dist {

struct JoinOptions {
  BRISK_ARG(bool, enable) = true;  // false: notify and finish return at once
  // When the first rank joins, every rank throws instead, naming the joined ranks.
  BRISK_ARG(bool, throw_on_early_termination) = false;
  // DDP's gradients are summed over the ranks still training and divided by the world size
  // (true, PyTorch's default) or by the number of ranks still training (false).
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
  // Without finish() (an exception in the loop), only detaches from the Joinables; without an
  // exception, also warns on stderr.
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
