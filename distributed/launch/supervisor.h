#pragma once
// Supervisor: runs the workers of one node and watches them until they have all ended:
// prefixes their output with "[rank N] ", forwards signals, stops every worker when one fails
// and, with options.max_restarts, starts the whole group again (with other nodes' launchers
// through a RoundCoordinator). What a user sees of each: docs/launch.md, "Output, signals,
// failures" and "Restarts".
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "distributed/launch/launch_options.h"
#include "distributed/launch/line_prefixer.h"
#include "distributed/launch/round_coordinator.h"

namespace brisk::launch {

class Supervisor {
 public:
  explicit Supervisor(LaunchOptions options);
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // Starts the workers and returns once all of them ended in a round that is not restarted,
  // with the launcher's exit status: 0 when every worker of the last round exited with 0;
  // else its failed worker's status as a shell reports it (its exit code, or 128 + its
  // signal); 128 + the signal when the launcher was interrupted.
  int run();

 private:
  using Clock = std::chrono::steady_clock;

  struct Worker {
    int local_rank;
    int rank;
    pid_t pid = -1;
    int out_fd = -1;
    int err_fd = -1;
    LinePrefixer out;
    LinePrefixer err;
    bool running = false;
    int wait_status = 0;  // once it exited
  };

  // One round: starts every worker and returns once all ended; the failure, if any.
  std::optional<RoundFailure> run_round(int round);
  void start(Worker& worker, int round);
  void loop();
  void check_other_nodes();
  void reap();
  void on_worker_exit(Worker& worker, int wait_status);
  void settle_failures();
  // Whether every worker of the round exited with kRequeueExitStatus (preempted and saved).
  bool all_requeued() const;
  void read_signals();
  void on_signal(int signal);
  void stop_all(int signal, const std::string& reason);
  void kill_stragglers();
  void drain(Worker& worker, int& fd, LinePrefixer& prefixer);
  bool any_running() const;
  bool any_pipe_open() const;

  LaunchOptions options_;
  std::unique_ptr<RoundCoordinator> coordinator_;  // several nodes with restarts only
  int round_ = 0;
  Clock::time_point last_check_;  // of the other nodes' failures
  std::vector<Worker> workers_;
  std::vector<std::string> env_base_;
  struct Failure {
    const Worker* worker;
    int wait_status;
  };
  std::vector<Failure> failures_;  // seen before the job was stopped, in order
  std::optional<Clock::time_point> settle_deadline_;
  std::optional<RoundFailure> failure_;  // of the current round, once settled
  std::optional<int> received_signal_;   // the first signal that stopped the job
  bool interrupted_ = false;             // a signal came: no more restarts
  std::optional<Clock::time_point> kill_deadline_;
  std::optional<Clock::time_point> drain_deadline_;
};

}  // namespace brisk::launch
