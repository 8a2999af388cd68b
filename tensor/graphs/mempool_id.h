#pragma once
// The id of a graph memory pool (torch.cuda.graph_pool_handle()): graphs given the same id
// share one pool, which the allocator keeps apart from the memory of eager work.
#include <cstdint>

#include "brisk/requires_cxx17.h"

namespace brisk::graphs {

struct MempoolId {
  uint64_t id = 0;  // 0: none (a graph then gets a pool of its own)

  bool operator==(const MempoolId& o) const { return id == o.id; }
  bool operator!=(const MempoolId& o) const { return id != o.id; }
};

// A new pool id, never handed out before, for graphs that should share their memory.
MempoolId graph_pool_handle();

}  // namespace brisk::graphs
