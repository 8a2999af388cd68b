#include "distributed/launch/exit_status.h"

#include <fmt/format.h>
#include <string.h>
#include <sys/wait.h>

namespace brisk::launch {

std::string signal_name(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", signal);
}

std::string describe_wait_status(int wait_status) {
  if (WIFEXITED(wait_status)) return fmt::format("exited with code {}", WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) {
    int signal = WTERMSIG(wait_status);
    return fmt::format("was killed by signal {} ({}){}", signal_name(signal), signal,
                       WCOREDUMP(wait_status) ? ", core dumped" : "");
  }
  return fmt::format("ended with wait status {:#x}", wait_status);
}

int shell_status(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

}  // namespace brisk::launch
