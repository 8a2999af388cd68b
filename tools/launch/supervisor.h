#pragma once
// Supervisor: runs the workers of one node and watches them until they have all ended.
//
// - Each worker runs in its own process group, with stdin from /dev/null, and dies with the
//   launcher (PR_SET_PDEATHSIG), so a killed launcher leaves no workers behind.
// - Their stdout and stderr go through pipes to the launcher's stdout and stderr, each line
//   led by "[rank N] ".
// - SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to the launcher are forwarded to every worker's
//   process group; a second one sends SIGKILL at once.
// - When a worker exits non-zero or is killed by a signal, the launcher says which rank
//   failed and how, sends SIGTERM to the others and SIGKILL to those still running after
//   the grace period. It first waits kSettleTime for other failures: a killed worker's
//   peers can notice its closed sockets and exit before its own death is reported. Of the
//   failures seen by then, the first one killed by a signal is taken as the cause (a peer
//   exiting with an error is more likely a consequence), else the first one; all are named.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "tools/launch/launch_options.h"
#include "tools/launch/line_prefixer.h"

namespace brisk::launch {

class Supervisor {
 public:
  explicit Supervisor(LaunchOptions options);
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // Starts the workers and returns once all of them ended, with the launcher's exit status:
  // 0 when every worker exited with 0; else the first failed worker's status as a shell
  // reports it (its exit code, or 128 + its signal); 128 + the signal when the launcher was
  // interrupted first.
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
  };

  void start(Worker& worker);
  void loop();
  void reap();
  void on_worker_exit(Worker& worker, int wait_status);
  void settle_failures();
  void on_signal(int signal);
  void stop_all(int signal, const std::string& reason);
  void kill_stragglers();
  void drain(Worker& worker, int& fd, LinePrefixer& prefixer);
  bool any_running() const;
  bool any_pipe_open() const;

  LaunchOptions options_;
  std::vector<Worker> workers_;
  std::vector<std::string> env_base_;
  struct Failure {
    const Worker* worker;
    int wait_status;
  };
  std::vector<Failure> failures_;  // seen before the job was stopped, in order
  std::optional<Clock::time_point> settle_deadline_;
  std::optional<int> failed_status_;    // wait status of the failure taken as the cause
  std::optional<int> received_signal_;  // the first signal that stopped the job
  std::optional<Clock::time_point> kill_deadline_;
  std::optional<Clock::time_point> drain_deadline_;
};

}  // namespace brisk::launch
