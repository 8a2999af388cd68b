#pragma once
// What one launcher starts: nproc_per_node workers of this node, all running `command`.
#include <chrono>
#include <string>
#include <vector>

namespace brisk::launch {

struct LaunchOptions {
  int nproc_per_node = 1;
  int nnodes = 1;
  int node_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;      // 0: a free port of master_addr, chosen by the launcher (single node only)
  int control_port = 0;     // of the launchers' control store (round_coordinator.h); 0: master_port + 1
  std::string store_token;  // hex; the same on every node of a job
  // After the first worker fails (or the launcher is signalled), how long the others get
  // between SIGTERM and SIGKILL.
  std::chrono::milliseconds grace_period{std::chrono::seconds(10)};
  // How often the whole group is started again after a failure (supervisor.h); 0: never.
  int max_restarts = 0;
  std::vector<std::string> command;  // the worker program and its arguments

  int world_size() const { return nnodes * nproc_per_node; }
  int global_rank(int local_rank) const { return node_rank * nproc_per_node + local_rank; }
};

}  // namespace brisk::launch
