#include "distributed/launch/supervisor.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "distributed/launch/exit_status.h"
#include "distributed/launch/worker_env.h"
#include "tensor/error.h"

extern char** environ;

namespace brisk::launch {
namespace {

// SIGUSR1: Slurm's `--signal=USR1@...` warning before the time limit, which training programs
// take as a preemption (train/preemption.h).
constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1};
// A worker's "preempted and saved: start the job again" (train/preemption.h's
// kRequeueExitStatus); a round that ends with it is not restarted here: the scheduler requeues.
constexpr int kRequeueExitStatus = 75;
// After every worker exited, how long their pipes may stay open (held by a worker's own
// children) before the launcher stops reading them.
constexpr auto kDrainTime = std::chrono::seconds(1);
// How long the first failure waits for others before the job is stopped: a killed worker's
// peers can notice its closed sockets and exit before its own death is reported, and of the
// failures seen by then the first one killed by a signal is taken as the cause.
constexpr auto kSettleTime = std::chrono::milliseconds(250);
// How often a launcher of several nodes asks the control store whether another node failed.
constexpr auto kOtherNodesPoll = std::chrono::milliseconds(100);

// Signal handlers only write the signal number here; the poll loop does the work.
int signal_pipe[2] = {-1, -1};

void on_signal_async(int signal) {
  int saved = errno;
  unsigned char byte = static_cast<unsigned char>(signal);
  [[maybe_unused]] ssize_t n = ::write(signal_pipe[1], &byte, 1);
  errno = saved;
}

void install_handlers() {
  BRISK_CHECK(pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) == 0, "launch: pipe2(): {}", std::strerror(errno));
  struct sigaction action {};
  action.sa_handler = on_signal_async;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int signal : kForwardedSignals) sigaction(signal, &action, nullptr);
  sigaction(SIGCHLD, &action, nullptr);
  // A closed stdout must not kill the launcher while workers still run.
  signal(SIGPIPE, SIG_IGN);
}

void restore_handlers() {
  for (int signal : kForwardedSignals) ::signal(signal, SIG_DFL);
  ::signal(SIGCHLD, SIG_DFL);
  ::signal(SIGPIPE, SIG_DFL);
  for (int& fd : signal_pipe) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
}

std::vector<std::string> current_environment() {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) env.emplace_back(*entry);
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

// Between fork() and exec: only async-signal-safe calls.
[[noreturn]] void exec_worker(pid_t launcher, int out_fd, int err_fd, int error_fd, char** argv, char** envp,
                              const sigset_t& mask) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != launcher) _exit(127);  // the launcher died before prctl took effect
  for (int signal : kForwardedSignals) ::signal(signal, SIG_DFL);
  ::signal(SIGCHLD, SIG_DFL);
  ::signal(SIGPIPE, SIG_DFL);
  sigprocmask(SIG_SETMASK, &mask, nullptr);
  int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
  dup2(out_fd, STDOUT_FILENO);
  dup2(err_fd, STDERR_FILENO);
  execvpe(argv[0], argv, envp);
  int error = errno;
  [[maybe_unused]] ssize_t n = ::write(error_fd, &error, sizeof(error));
  _exit(127);
}

void set_deadline(std::optional<std::chrono::steady_clock::time_point>& deadline,
                  std::chrono::steady_clock::duration after) {
  auto when = std::chrono::steady_clock::now() + after;
  if (!deadline || when < *deadline) deadline = when;
}

}  // namespace

Supervisor::Supervisor(LaunchOptions options) : options_(std::move(options)) {
  BRISK_CHECK(!options_.command.empty(), "launch: no worker program given");
  env_base_ = current_environment();
  if (options_.nnodes > 1 && options_.max_restarts > 0) coordinator_ = std::make_unique<RoundCoordinator>(options_);
}

Supervisor::~Supervisor() {
  for (Worker& worker : workers_) {
    if (worker.running) killpg(worker.pid, SIGKILL);
    for (int fd : {worker.out_fd, worker.err_fd})
      if (fd >= 0) close(fd);
  }
  restore_handlers();
}

int Supervisor::run() {
  install_handlers();
  for (int round = 0;; ++round) {
    std::optional<RoundFailure> failure = run_round(round);
    if (received_signal_) return all_requeued() ? kRequeueExitStatus : 128 + *received_signal_;
    if (!failure) return 0;
    if (interrupted_ || failure->final) return failure->status;
    if (round == options_.max_restarts) {
      if (round > 0) {
        fmt::print(stderr, "launch: round {} failed and all {} restarts are used; exiting with status {}\n", round,
                   options_.max_restarts, failure->status);
      }
      return failure->status;
    }
    fmt::print(stderr, "launch: restart {} of {} (round {}) after {}\n", round + 1, options_.max_restarts, round + 1,
               failure->cause);
    std::fflush(stderr);
  }
}

std::optional<RoundFailure> Supervisor::run_round(int round) {
  round_ = round;
  if (coordinator_) coordinator_->join(round);
  workers_.clear();
  failures_.clear();
  failure_.reset();
  settle_deadline_.reset();
  kill_deadline_.reset();
  drain_deadline_.reset();
  workers_.reserve(options_.nproc_per_node);
  for (int local = 0; local < options_.nproc_per_node; ++local) {
    int rank = options_.global_rank(local);
    std::string prefix = fmt::format("[rank {}] ", rank);
    workers_.push_back(
        Worker{local, rank, -1, -1, -1, LinePrefixer(prefix, STDOUT_FILENO), LinePrefixer(prefix, STDERR_FILENO)});
  }
  read_signals();  // one that came between rounds
  for (Worker& worker : workers_) {
    if (!failures_.empty() || received_signal_) break;
    start(worker, round);
    reap();
  }
  loop();
  if (!failures_.empty() && !failure_) settle_failures();
  if (coordinator_) return coordinator_->end(round);
  return failure_;
}

void Supervisor::start(Worker& worker, int round) {
  int out[2], err[2], error[2];
  BRISK_CHECK(pipe2(out, O_CLOEXEC) == 0 && pipe2(err, O_CLOEXEC) == 0 && pipe2(error, O_CLOEXEC) == 0,
              "launch: pipe2(): {}", std::strerror(errno));
  std::vector<std::string> args = options_.command;
  std::vector<std::string> env = worker_env(options_, worker.local_rank, round, env_base_);
  std::vector<char*> argv = c_strings(args);
  std::vector<char*> envp = c_strings(env);

  // Signals stay blocked across fork, so the child never runs the launcher's handlers.
  sigset_t all, previous;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &previous);
  pid_t launcher = getpid();
  pid_t pid = fork();
  if (pid == 0) exec_worker(launcher, out[1], err[1], error[1], argv.data(), envp.data(), previous);
  int fork_error = errno;
  sigprocmask(SIG_SETMASK, &previous, nullptr);
  for (int fd : {out[1], err[1], error[1]}) close(fd);
  if (pid < 0) {
    for (int fd : {out[0], err[0], error[0]}) close(fd);
    BRISK_FAIL("launch: cannot start rank {}: fork(): {}", worker.rank, std::strerror(fork_error));
  }
  setpgid(pid, pid);
  worker.pid = pid;
  worker.running = true;
  worker.out_fd = out[0];
  worker.err_fd = err[0];

  int exec_errno = 0;
  ssize_t n;
  do {
    n = ::read(error[0], &exec_errno, sizeof(exec_errno));
  } while (n < 0 && errno == EINTR);
  close(error[0]);
  if (n == sizeof(exec_errno)) {
    fmt::print(stderr, "launch: cannot start rank {}: {}: {}\n", worker.rank, options_.command[0],
               std::strerror(exec_errno));
    std::fflush(stderr);
  }
}

void Supervisor::loop() {
  while (any_running() || any_pipe_open()) {
    auto now = Clock::now();
    if (!any_running()) set_deadline(drain_deadline_, kDrainTime);
    if (drain_deadline_ && now >= *drain_deadline_) break;
    if (settle_deadline_ && (now >= *settle_deadline_ || !any_running())) settle_failures();
    if (kill_deadline_ && now >= *kill_deadline_) kill_stragglers();
    check_other_nodes();

    std::optional<Clock::time_point> wake;
    for (const auto& deadline : {settle_deadline_, kill_deadline_, drain_deadline_})
      if (deadline && (!wake || *deadline < *wake)) wake = deadline;
    if (coordinator_ && (!wake || now + kOtherNodesPoll < *wake)) wake = now + kOtherNodesPoll;
    int timeout_ms = -1;
    if (wake) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*wake - now).count();
      timeout_ms = static_cast<int>(std::clamp<int64_t>(left + 1, 0, 60'000));
    }

    std::vector<pollfd> fds{{signal_pipe[0], POLLIN, 0}};
    for (const Worker& worker : workers_) {
      if (worker.out_fd >= 0) fds.push_back({worker.out_fd, POLLIN, 0});
      if (worker.err_fd >= 0) fds.push_back({worker.err_fd, POLLIN, 0});
    }
    int ready = poll(fds.data(), fds.size(), timeout_ms);
    if (ready < 0 && errno != EINTR) BRISK_FAIL("launch: poll(): {}", std::strerror(errno));

    read_signals();
    for (Worker& worker : workers_) {
      drain(worker, worker.out_fd, worker.out);
      drain(worker, worker.err_fd, worker.err);
    }
    reap();
  }
  for (Worker& worker : workers_) {
    if (worker.out_fd >= 0) worker.out.finish();
    if (worker.err_fd >= 0) worker.err.finish();
  }
}

void Supervisor::check_other_nodes() {
  if (!coordinator_ || failure_ || received_signal_ || !failures_.empty()) return;
  auto now = Clock::now();
  if (now < last_check_ + kOtherNodesPoll) return;
  last_check_ = now;
  std::optional<RoundFailure> elsewhere = coordinator_->failure(round_);
  if (!elsewhere) return;
  failure_ = elsewhere;
  stop_all(SIGTERM, elsewhere->cause);
}

void Supervisor::read_signals() {
  unsigned char signals[64];
  ssize_t n;
  while ((n = ::read(signal_pipe[0], signals, sizeof(signals))) > 0)
    for (ssize_t i = 0; i < n; ++i)
      if (signals[i] != SIGCHLD) on_signal(signals[i]);
}

void Supervisor::drain(Worker& worker, int& fd, LinePrefixer& prefixer) {
  if (fd < 0) return;
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, 0) <= 0) return;
  char buffer[65536];
  ssize_t n = ::read(fd, buffer, sizeof(buffer));
  if (n > 0) {
    prefixer.feed(std::string_view(buffer, static_cast<size_t>(n)));
  } else if (n == 0 || errno != EINTR) {
    prefixer.finish();
    close(fd);
    fd = -1;
  }
}

void Supervisor::reap() {
  for (Worker& worker : workers_) {
    if (!worker.running) continue;
    int status = 0;
    pid_t pid;
    do {
      pid = waitpid(worker.pid, &status, WNOHANG);
    } while (pid < 0 && errno == EINTR);
    if (pid == worker.pid) {
      worker.running = false;
      on_worker_exit(worker, status);
    }
  }
}

bool Supervisor::all_requeued() const {
  return !workers_.empty() && std::all_of(workers_.begin(), workers_.end(), [](const Worker& w) {
    return !w.running && WIFEXITED(w.wait_status) && WEXITSTATUS(w.wait_status) == kRequeueExitStatus;
  });
}

void Supervisor::on_worker_exit(Worker& worker, int wait_status) {
  worker.wait_status = wait_status;
  bool failed = !(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0);
  if (!failed || failure_ || received_signal_) return;
  failures_.push_back({&worker, wait_status});
  set_deadline(settle_deadline_, kSettleTime);
}

void Supervisor::settle_failures() {
  settle_deadline_.reset();
  auto cause =
      std::find_if(failures_.begin(), failures_.end(), [](const Failure& f) { return WIFSIGNALED(f.wait_status); });
  if (cause == failures_.end()) cause = failures_.begin();
  auto describe = [](const Failure& f) {
    return fmt::format("rank {} (local rank {}, pid {}) {}", f.worker->rank, f.worker->local_rank, f.worker->pid,
                       describe_wait_status(f.wait_status));
  };
  std::string reason = describe(*cause);
  for (const Failure& f : failures_)
    if (&f != &*cause) reason += fmt::format("; also {}", describe(f));
  // A signal to the launcher while the failure settled, or a preempted worker: no restart.
  const bool requeue = WIFEXITED(cause->wait_status) && WEXITSTATUS(cause->wait_status) == kRequeueExitStatus;
  failure_ = RoundFailure{shell_status(cause->wait_status), reason, interrupted_ || requeue};
  if (coordinator_) coordinator_->report(round_, *failure_);
  stop_all(SIGTERM, reason);
}

void Supervisor::on_signal(int signal) {
  interrupted_ = true;
  if (!failures_.empty() && !failure_) {
    settle_failures();
    return;
  }
  if (received_signal_ || failure_) {
    // Asked again while stopping: no more grace, and no restart.
    kill_deadline_ = Clock::now();
    if (coordinator_ && !received_signal_) {
      coordinator_->report(round_,
                           RoundFailure{failure_->status, "its launcher received " + signal_name(signal), true});
    }
    return;
  }
  received_signal_ = signal;
  std::string reason = fmt::format("received {}", signal_name(signal));
  if (coordinator_) coordinator_->report(round_, RoundFailure{128 + signal, "its launcher " + reason, true});
  stop_all(signal, reason);
}

void Supervisor::stop_all(int signal, const std::string& reason) {
  int running =
      static_cast<int>(std::count_if(workers_.begin(), workers_.end(), [](const Worker& w) { return w.running; }));
  if (running > 0) {
    fmt::print(stderr, "launch: {}; sending {} to the {} running worker{}\n", reason, signal_name(signal), running,
               running == 1 ? "" : "s");
  } else {
    fmt::print(stderr, "launch: {}\n", reason);
  }
  std::fflush(stderr);
  for (const Worker& worker : workers_) {
    if (!worker.running) continue;
    killpg(worker.pid, signal);
    killpg(worker.pid, SIGCONT);
  }
  set_deadline(kill_deadline_, options_.grace_period);
}

void Supervisor::kill_stragglers() {
  for (const Worker& worker : workers_) {
    if (!worker.running) continue;
    fmt::print(stderr, "launch: rank {} (pid {}) still running after the grace period; sending SIGKILL\n", worker.rank,
               worker.pid);
    killpg(worker.pid, SIGKILL);
  }
  std::fflush(stderr);
  kill_deadline_.reset();
}

bool Supervisor::any_running() const {
  return std::any_of(workers_.begin(), workers_.end(), [](const Worker& w) { return w.running; });
}

bool Supervisor::any_pipe_open() const {
  return std::any_of(workers_.begin(), workers_.end(), [](const Worker& w) { return w.out_fd >= 0 || w.err_fd >= 0; });
}

}  // namespace brisk::launch
