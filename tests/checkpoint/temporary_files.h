#pragma once
// Temporary files as killed checkpoint writes leave them (checkpoint/atomic_file.h), for the
// tests of their removal: this machine's name, the ID of a process that is gone, and the
// file's name.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace brisk::checkpoint::testing {

inline std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0) throw std::runtime_error("gethostname failed");
  return name;
}

// The ID of a process that has exited (and been reaped).
inline pid_t exited_pid() {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  if (child < 0 || ::waitpid(child, nullptr, 0) != child) throw std::runtime_error("fork failed");
  return child;
}

// The path AtomicFile gives the temporary file of `dir`/`target` written on `host` by process
// `pid`, its `n`th.
inline std::string temporary_path(const std::string& dir, const std::string& target, const std::string& host,
                                  int64_t pid, int n = 0) {
  return dir + "/." + target + ".tmp-" + host + "-" + std::to_string(pid) + "-" + std::to_string(n);
}

}  // namespace brisk::checkpoint::testing
