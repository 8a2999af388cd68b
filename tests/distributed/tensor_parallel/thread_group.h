#pragma once
// The thread-rank group of a tensor-parallel test: run_tp(N, fn) runs fn(rank, group) on N
// thread ranks of one ThreadWorld (tests/distributed/ddp/thread_process_group.h).
#include <functional>
#include <memory>

#include "tests/distributed/ddp/thread_process_group.h"

namespace brisk::dist::testing {

inline void run_tp(int world, const std::function<void(int rank, const GroupPtr& group)>& fn) {
  auto shared = std::make_shared<ThreadWorld>(world, std::chrono::seconds(30));
  run_ranks(world, [&](int rank) {
    GroupPtr group = std::make_shared<ThreadProcessGroup>(shared, rank);
    fn(rank, group);
  });
}

}  // namespace brisk::dist::testing
