#include "distributed/launch/exit_status.h"

#include <signal.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>

using namespace brisk::launch;

TEST_CASE("exit_status: exit codes and signals are described and mapped as a shell does", "[launch]") {
  CHECK(describe_wait_status(W_EXITCODE(0, 0)) == "exited with code 0");
  CHECK(describe_wait_status(W_EXITCODE(3, 0)) == "exited with code 3");
  CHECK(shell_status(W_EXITCODE(3, 0)) == 3);
  CHECK(describe_wait_status(W_EXITCODE(0, SIGKILL)) == "was killed by signal SIGKILL (9)");
  CHECK(shell_status(W_EXITCODE(0, SIGKILL)) == 137);
  CHECK(describe_wait_status(W_EXITCODE(0, SIGSEGV) | WCOREFLAG) == "was killed by signal SIGSEGV (11), core dumped");
  CHECK(shell_status(W_EXITCODE(0, SIGTERM)) == 143);
  CHECK(signal_name(SIGINT) == "SIGINT");
  CHECK(signal_name(200) == "signal 200");
}
