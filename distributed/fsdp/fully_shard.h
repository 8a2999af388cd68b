#pragma once
// dist::fully_shard: fully sharded data parallelism (ZeRO-3) in the shape of PyTorch's FSDP2
// (torch.distributed.fsdp.fully_shard). Each rank keeps 1/N of every parameter; a unit's
// parameters are all-gathered just before its forward and freed after it, gathered again for
// its backward, and its gradients reduce-scattered (AVG) as soon as they are complete.
//
//   for (auto& block : blocks) dist::fully_shard(*block);   // one unit per block
//   dist::fully_shard(*model);                              // the root: the rest
//   optim::Adam opt(model->parameters(), ...);              // the shards
//   loss_fn(model(x), y).backward();                        // .grad: the gradient shards
//   opt.step();
//
// Each call makes one unit of the parameters of `module` that no unit below it took. After it
// the module's parameters are this rank's shards: rows of dim 0 (torch.chunk's split, the
// layout of distributed/shard/flat_shard_layout.h), so module.parameters() gives what the
// optimizer steps and state_dict() what this rank holds. Construction checks that every rank
// has the same parameter names, shapes and dtypes (an error names the rank and the
// parameter), then shards rank 0's values (broadcast): every rank may start from its own
// initialization. Buffers are neither sharded nor synchronized.
//
// A unit gathers its parameters from forward hooks (nn::Module::register_forward_pre_hook), so
// call units as modules: model(x), a holder's fc(x), Sequential; a direct impl.forward(x) skips
// the hooks, as module.forward(x) does in PyTorch, and sees the shards. Units must run their
// forwards and backwards in the same order on every rank; docs/distributed.md ("Fully sharded
// data parallel") says what happens when, and what is not supported yet.
#include <memory>
#include <vector>

#include "distributed/ddp/comm_overlap.h"
#include "distributed/fsdp/fully_shard_options.h"
#include "distributed/fsdp/sharded_unit.h"
#include "nn/module.h"

namespace brisk::dist {

struct FullyShardState;

// A handle to the unit fully_shard made of a module (PyTorch's FSDPModule).
class FSDPModule {
 public:
  explicit FSDPModule(std::shared_ptr<FullyShardState> state) : state_(std::move(state)) {}

  // Its parameters, layout and shards (sharded checkpoints read these).
  const ShardedUnit& unit() const;
  // Gathers the parameters now, as before forward (e.g. to read the full model), and back.
  void unshard();
  void reshard();
  // false: backward keeps this unit's full gradients (in the reduce dtype) instead of
  // reduce-scattering them, until a backward with true reduces their sum: gradient
  // accumulation without communication, at the cost of full-size gradients in between.
  // `recurse`: the units below too (PyTorch's default).
  void set_requires_gradient_sync(bool requires_gradient_sync, bool recurse = true);

 private:
  std::shared_ptr<FullyShardState> state_;
};

// Makes `module` a unit over options.group() (the default group when null). Collective: every
// rank calls fully_shard on the same modules in the same order.
FSDPModule fully_shard(nn::Module& module, const FullyShardOptions& options = {});

// The units of `root`'s tree, parents before children (named_modules' order).
std::vector<FSDPModule> fsdp_modules(nn::Module& root);

// How much of the last iteration's all_gather and reduce_scatter time (every unit of `root`'s
// tree, forward and backward) was hidden behind computation: communication is the union of
// the collectives' spans from issue to completion; exposed is the time the training thread
// waited for them (capped at communication), hidden the rest.
CommOverlap fsdp_comm_overlap(nn::Module& root);

}  // namespace brisk::dist
