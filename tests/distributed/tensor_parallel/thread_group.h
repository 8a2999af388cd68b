#pragma once
// The thread-rank group of a tensor-parallel test: run_tp(N, fn) runs fn(rank, group) on N
// thread ranks of one ThreadWorld (tests/distributed/ddp/thread_process_group.h). An exception
// on some ranks fails the test with every rank's message (the others usually time out waiting
// for the rank that threw, so the first by rank alone would hide the cause).
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "distributed/distributed.h"
#include "tests/distributed/ddp/thread_process_group.h"
#include "tests/thread_checks.h"

namespace brisk::dist::testing {

inline void run_tp(int world, const std::function<void(int rank, const GroupPtr& group)>& fn) {
  auto shared = std::make_shared<ThreadWorld>(world, std::chrono::seconds(30));
  std::vector<std::string> errors(world);
  run_ranks(world, [&](int rank) {
    GroupPtr group = std::make_shared<ThreadProcessGroup>(shared, rank);
    try {
      fn(rank, group);
    } catch (const brisk::testing::ThreadCheckAbort&) {
      throw;
    } catch (const std::exception& e) {
      errors[rank] = e.what();
    }
  });
  std::string all;
  for (int rank = 0; rank < world; ++rank)
    if (!errors[rank].empty()) all += "\n  rank " + std::to_string(rank) + ": " + errors[rank];
  if (!all.empty()) throw std::runtime_error("run_tp on " + std::to_string(world) + " ranks:" + all);
}

}  // namespace brisk::dist::testing
