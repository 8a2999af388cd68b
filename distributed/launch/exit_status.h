#pragma once
// How a worker ended, from the status waitpid() reports.
#include <string>

namespace brisk::launch {

// "exited with code 3", "was killed by signal SIGKILL (9)".
std::string describe_wait_status(int wait_status);

// The status a shell reports for it: the exit code, or 128 + the signal number.
int shell_status(int wait_status);

// "SIGTERM" for 15; "signal 77" for a number without a name.
std::string signal_name(int signal);

}  // namespace brisk::launch
