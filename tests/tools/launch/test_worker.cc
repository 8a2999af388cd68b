// A worker for the launcher's tests: `test_worker <scenario> [args]` behaves as the scenario
// says, so the test can check what the launcher does with it.
//
//   env                  prints the launcher's variables, one "NAME=value" per line
//   cwd                  prints "cwd=<its working directory>"
//   streams              writes to stdout and stderr, several lines per write, and a last line
//                        without a newline
//   fail <rank> <code>   rank <rank> exits with <code> after 200 ms; the others wait 30 s
//   sigkill <rank>       rank <rank> sends itself SIGKILL after 200 ms; the others wait 30 s
//   two_failures <a> <b> <dir>  ranks <a> and <b> create <dir>/started.<rank> and wait for
//                        each other's; then rank <a> exits with 1 after 200 ms, rank <b> sends
//                        itself SIGKILL after 300 ms (counted from the same moment however late
//                        each process started); the others wait 30 s
//   trap                 prints "ready", then on SIGTERM or SIGINT prints "caught <name>" and
//                        exits 0
//   fail_rounds <rank> <n>  in rounds (TORCHELASTIC_RESTART_COUNT) below n, rank <rank> sends
//                        itself SIGKILL after 200 ms and the others wait 30 s; from round n on
//                        every rank prints "round R (BRISK_RESTART_ROUND R) of max M, token T"
//                        and exits 0
//   stop <rank>          rank <rank> stops itself (SIGSTOP); the others exit with 1 after 300 ms
//   stubborn <rank> <dir>  the others ignore SIGTERM, create <dir>/ready.<rank> and wait 30 s;
//                        rank <rank> exits with 1 once all those files exist
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

int rank() {
  const char* value = std::getenv("RANK");
  return value ? std::atoi(value) : -1;
}

void say(const std::string& line) {
  std::string text = line + "\n";
  [[maybe_unused]] ssize_t n = write(STDOUT_FILENO, text.data(), text.size());
}

void wait_then_finish() {
  say("waiting");
  std::this_thread::sleep_for(std::chrono::seconds(30));
  say("finished");
}

void on_stop_signal(int signal) {
  const char* text = signal == SIGTERM ? "caught SIGTERM\n" : "caught SIGINT\n";
  [[maybe_unused]] ssize_t n = write(STDOUT_FILENO, text, std::strlen(text));
  _exit(0);
}

std::string env_or_unset(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "<unset>";
}

int fail_rounds(int target, int rounds) {
  int round = std::atoi(env_or_unset("TORCHELASTIC_RESTART_COUNT").c_str());
  if (round < rounds) {
    if (rank() != target) {
      wait_then_finish();
      return 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    raise(SIGKILL);
  }
  say("round " + std::to_string(round) + " (BRISK_RESTART_ROUND " + env_or_unset("BRISK_RESTART_ROUND") + ") of max " +
      env_or_unset("TORCHELASTIC_MAX_RESTARTS") + ", token " + env_or_unset("BRISK_STORE_TOKEN"));
  return 0;
}

int print_env() {
  for (const char* name : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "MASTER_ADDR",
                           "MASTER_PORT", "BRISK_STORE_TOKEN", "OMP_NUM_THREADS", "TORCHELASTIC_RESTART_COUNT",
                           "BRISK_RESTART_ROUND", "TORCHELASTIC_MAX_RESTARTS"}) {
    say(std::string(name) + "=" + env_or_unset(name));
  }
  return 0;
}

int streams() {
  say("out one\nout two");
  std::string err = "err one\nerr two\n";
  [[maybe_unused]] ssize_t n = write(STDERR_FILENO, err.data(), err.size());
  // One line in two writes, then a last line with no newline.
  n = write(STDOUT_FILENO, "split ", 6);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  n = write(STDOUT_FILENO, "line\nno newline", 15);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string scenario = argc > 1 ? argv[1] : "";
  int target = argc > 2 ? std::atoi(argv[2]) : -1;
  if (scenario == "env") return print_env();
  if (scenario == "cwd") {
    char dir[4096];
    say(std::string("cwd=") + (getcwd(dir, sizeof dir) != nullptr ? dir : "?"));
    return 0;
  }
  if (scenario == "streams") return streams();
  if (scenario == "fail" || scenario == "sigkill") {
    if (rank() != target) {
      wait_then_finish();
      return 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    say("failing");
    if (scenario == "sigkill") raise(SIGKILL);
    return argc > 3 ? std::atoi(argv[3]) : 1;
  }
  if (scenario == "two_failures") {
    int killer = argc > 3 ? std::atoi(argv[3]) : -1;
    if (rank() != target && rank() != killer) {
      wait_then_finish();
      return 0;
    }
    std::string dir = argc > 4 ? argv[4] : ".";
    std::fclose(std::fopen((dir + "/started." + std::to_string(rank())).c_str(), "w"));
    for (int r : {target, killer}) {
      std::string path = dir + "/started." + std::to_string(r);
      while (access(path.c_str(), F_OK) != 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(rank() == target ? 200 : 300));
    if (rank() == killer) raise(SIGKILL);
    return 1;
  }
  if (scenario == "fail_rounds") return fail_rounds(target, argc > 3 ? std::atoi(argv[3]) : 0);
  if (scenario == "stop") {
    if (rank() == target) raise(SIGSTOP);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return 1;
  }
  if (scenario == "trap") {
    signal(SIGTERM, on_stop_signal);
    signal(SIGINT, on_stop_signal);
    say("ready");
    for (;;) pause();
  }
  if (scenario == "stubborn") {
    if (rank() != target) {
      signal(SIGTERM, SIG_IGN);
      std::string path = std::string(argc > 3 ? argv[3] : ".") + "/ready." + std::to_string(rank());
      std::fclose(std::fopen(path.c_str(), "w"));
      wait_then_finish();
      return 0;
    }
    std::string dir = argc > 3 ? argv[3] : ".";
    int world = std::atoi(std::getenv("WORLD_SIZE"));
    for (int r = 0; r < world; ++r) {
      std::string path = dir + "/ready." + std::to_string(r);
      while (r != target && access(path.c_str(), F_OK) != 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return 1;
  }
  std::fprintf(stderr, "test_worker: unknown scenario '%s'\n", scenario.c_str());
  return 64;
}
