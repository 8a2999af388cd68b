#pragma once
// A DeviceMesh over thread ranks (tests/distributed/ddp/thread_process_group.h): one ThreadWorld
// per group of the mesh, shared by the threads of its ranks.
//
//   ThreadMeshWorlds worlds;
//   run_ranks(8, [&](int rank) {
//     DeviceMesh mesh({{"dp", 2}, {"pp", 2}, {"tp", 2}}, rank, 8, worlds.factory(rank));
//     ...
//   });
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "distributed/mesh/device_mesh.h"
#include "tests/distributed/ddp/thread_process_group.h"

namespace brisk::dist::testing {

class ThreadMeshWorlds {
 public:
  // Rank `rank`'s DeviceMesh::GroupFactory: its ThreadProcessGroup in the world of `ranks`
  // (made by the first thread that asks), nullptr when it is not among them.
  DeviceMesh::GroupFactory factory(int rank) {
    return [this, rank](const std::vector<int>& ranks) -> GroupPtr {
      const auto it = std::find(ranks.begin(), ranks.end(), rank);
      if (it == ranks.end()) return nullptr;
      return std::make_shared<ThreadProcessGroup>(world(ranks), static_cast<int>(it - ranks.begin()));
    };
  }

 private:
  std::shared_ptr<ThreadWorld> world(const std::vector<int>& ranks) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& world = worlds_[ranks];
    if (!world) world = std::make_shared<ThreadWorld>(static_cast<int>(ranks.size()));
    return world;
  }

  std::mutex mutex_;
  std::map<std::vector<int>, std::shared_ptr<ThreadWorld>> worlds_;
};

}  // namespace brisk::dist::testing
