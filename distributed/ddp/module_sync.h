#pragma once
// Keeping the replicas of a module identical across ranks: the checks and broadcasts
// DistributedDataParallel runs at construction and (for buffers) before forward.
#include <cstdint>
#include <string>
#include <vector>

#include "distributed/process_group.h"
#include "nn/module.h"

namespace brisk::dist {

// Copies `root`'s values of `tensors` into every rank's, in place. Tensors of one dtype and
// device are flattened into buffers of about `buffer_bytes` so that many small tensors cost
// few collectives. Blocks until done.
void broadcast_coalesced(ProcessGroup& group, const std::vector<Tensor>& tensors, int root,
                         int64_t buffer_bytes = 256LL << 20);

// Checks that every tensor is on group.device(), where the group's collectives take them;
// the error names the tensor, its device and the group's (not collective: a local check).
// `wrapper` names the caller in messages.
void check_on_group_device(const ProcessGroup& group, const nn::StateDict& tensors, const std::string& what,
                           const std::string& wrapper);

// Checks that every rank has the same number of named tensors with the same shapes and
// dtypes (one all-gather of a compact description). On a mismatch every rank throws an
// error naming the first rank that differs from rank 0, the tensor, and both shapes.
// `what` names the tensors in messages ("parameter"), `wrapper` the caller.
void verify_same_shapes(ProcessGroup& group, const nn::StateDict& tensors, const std::string& what,
                        const std::string& wrapper);

// A module made a replica of rank 0's: what a data-parallel wrapper keeps of it.
struct Replica {
  std::vector<Tensor> buffers;
  std::vector<Tensor> trained;             // the parameters that require a gradient
  std::vector<std::string> trained_names;  // their names, for messages
};

// What DistributedDataParallel and Zero2DataParallel run at construction (collective): both
// checks above for the parameters and the buffers, then rank 0's values broadcast to every
// rank. Throws, naming `wrapper`, when no parameter requires a gradient.
Replica replicate_from_rank0(nn::Module& module, ProcessGroup& group, const std::string& wrapper);

}  // namespace brisk::dist
