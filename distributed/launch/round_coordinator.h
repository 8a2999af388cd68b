#pragma once
// RoundCoordinator: how the launchers of a multi-node job with restarts (--nnodes > 1,
// --max-restarts > 0) take part in every round together, through a control store that node
// 0's launcher hosts. After round r every launcher waits until every node ended it, then reads
// round r's failure: all reach the same decision, to restart or to exit with its status. The
// store's keys: docs/launch.md, "Restarts".
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "distributed/launch/launch_options.h"

namespace brisk::dist {
class TCPStore;
}

namespace brisk::launch {

// Why a round failed: the launcher's status if it is the last round, and what to log. A final
// failure (a launcher was signalled) ends the job without a restart.
struct RoundFailure {
  int status = 1;
  std::string cause;
  bool final = false;
};

class RoundCoordinator {
 public:
  // How long a launcher waits for the others at the start and at the end of a round.
  static constexpr std::chrono::seconds kBarrierTimeout{300};

  // Hosts the control store on node 0 and connects to it (waiting for node 0's launcher up to
  // kBarrierTimeout); checks that every node has the same --max-restarts and --nproc-per-node.
  explicit RoundCoordinator(const LaunchOptions& options);
  ~RoundCoordinator();
  RoundCoordinator(const RoundCoordinator&) = delete;
  RoundCoordinator& operator=(const RoundCoordinator&) = delete;

  // Returns once every node's launcher is ready to start round `round`.
  void join(int round);
  // Round `round`'s failure, if a node reported one; does not wait.
  std::optional<RoundFailure> failure(int round);
  // Reports this node's failure of round `round` (the cause without the node: it is added);
  // the first report of a round wins, but a final one always makes the round's outcome final.
  void report(int round, const RoundFailure& failure);
  // This node's workers of round `round` have all ended: returns once every node's have, with
  // the round's failure (none when every worker of every node succeeded).
  std::optional<RoundFailure> end(int round);

 private:
  // Sets `prefix`/<this node>; with `wait`, returns once every node's key is set.
  void barrier(const std::string& prefix, const char* what, int round, bool wait);

  LaunchOptions options_;
  std::string where_;  // "the control store at 10.0.0.1:29501", for messages
  std::unique_ptr<dist::TCPStore> store_;
};

}  // namespace brisk::launch
