#include "tests/tools/launch/process_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace brisk::testing {
namespace {

using Clock = std::chrono::steady_clock;

int shell_status(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return -1;
}

// Reads what is available; false at end of stream.
bool read_some(int fd, std::string& into) {
  char buffer[65536];
  ssize_t n;
  do {
    n = ::read(fd, buffer, sizeof(buffer));
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return false;
  into.append(buffer, static_cast<size_t>(n));
  return true;
}

}  // namespace

RunResult run_process(const std::vector<std::string>& argv, const RunOptions& options) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("run_process: pipe2: ") + std::strerror(errno));
  std::vector<std::string> args = argv;
  std::vector<char*> c_argv;
  for (std::string& arg : args) c_argv.push_back(arg.data());
  c_argv.push_back(nullptr);
  // The environment is built before fork(): the child may only make async-signal-safe calls.
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string name(*entry, std::strcspn(*entry, "="));
    bool replaced = false;
    for (const auto& [key, value] : options.env) replaced = replaced || key == name;
    if (!replaced) env.emplace_back(*entry);
  }
  for (const auto& [key, value] : options.env) env.push_back(key + "=" + value);
  std::vector<char*> c_env;
  for (std::string& entry : env) c_env.push_back(entry.data());
  c_env.push_back(nullptr);

  auto start = Clock::now();
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    execve(c_argv[0], c_argv.data(), c_env.data());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  if (pid < 0) throw std::runtime_error(std::string("run_process: fork: ") + std::strerror(errno));

  RunResult result;
  int fds[2] = {out[0], err[0]};
  std::string* sinks[2] = {&result.out, &result.err};
  bool signalled = options.signal == 0;
  auto deadline = start + options.timeout;
  while (fds[0] >= 0 || fds[1] >= 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      kill(pid, SIGKILL);
      result.timed_out = true;
      break;
    }
    pollfd p[2];
    nfds_t n = 0;
    int index[2];
    for (int i = 0; i < 2; ++i)
      if (fds[i] >= 0) {
        p[n] = {fds[i], POLLIN, 0};
        index[n++] = i;
      }
    if (poll(p, n, static_cast<int>(left)) < 0 && errno != EINTR) break;
    for (nfds_t k = 0; k < n; ++k) {
      if (p[k].revents == 0) continue;
      int i = index[k];
      if (!read_some(fds[i], *sinks[i])) {
        close(fds[i]);
        fds[i] = -1;
      }
    }
    if (!signalled && count(result.out + result.err, options.signal_after) >= options.signal_after_count) {
      kill(pid, options.signal);
      signalled = true;
    }
  }
  for (int fd : fds)
    if (fd >= 0) close(fd);
  int wait_status = 0;
  while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!result.timed_out) result.status = shell_status(wait_status);
  return result;
}

std::string launcher_path() { return "tools/launch/launch"; }

std::string output_of(const RunResult& result) { return "stdout:\n" + result.out + "\nstderr:\n" + result.err; }

int count(const std::string& text, const std::string& needle) {
  if (needle.empty()) return 0;
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

std::vector<std::string> lines_starting_with(const std::string& text, const std::string& prefix) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);)
    if (line.rfind(prefix, 0) == 0) lines.push_back(line);
  return lines;
}

namespace {

// This test process's own directory for Open MPI's session files, made at the first mpirun and
// removed at exit. Held by a pointer that is never freed, so that it outlives the static
// destructors that run before the atexit handler.
const std::string& mpirun_tmpdir() {
  static const std::string* dir = [] {
    char name[] = "/tmp/brisk-mpi-XXXXXX";
    if (::mkdtemp(name) == nullptr)
      throw std::runtime_error(std::string("mpirun_env: mkdtemp /tmp/brisk-mpi-XXXXXX: ") + std::strerror(errno));
    auto* made = new std::string(name);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(mpirun_tmpdir(), ignored);
    });
    return made;
  }();
  return *dir;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> mpirun_env() {
  const std::string& tmp = mpirun_tmpdir();
  std::vector<std::pair<std::string, std::string>> env{{"TMPDIR", tmp},
                                                       {"OMPI_MCA_orte_tmpdir_base", tmp},
                                                       {"OMPI_MCA_btl_vader_backing_directory", tmp}};
  if (const char* options = std::getenv("ASAN_OPTIONS"))
    env.emplace_back("ASAN_OPTIONS", std::string(options) + ":detect_leaks=0");
  return env;
}

}  // namespace brisk::testing
