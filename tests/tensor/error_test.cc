// brisk::Error that nothing catches (tensor/error.h): uncaught_error_program lets one leave
// main or a thread, which must end with the message once on stderr, then the hint or, with
// BRISK_BACKTRACE=1, a backtrace naming the function that raised it, and exit status 1 (a
// failure for the launcher too); other exceptions keep std::terminate's report and SIGABRT.
#include <csignal>

#include <catch2/catch.hpp>

#include "tests/tools/launch/process_runner.h"

namespace {

using namespace brisk::testing;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

const std::string kProgram = "tests/tensor/uncaught_error_program";

RunResult run(const std::string& mode, const std::string& backtrace) {
  RunOptions options;
  options.timeout = std::chrono::seconds(30);
  options.env = {{"BRISK_BACKTRACE", backtrace}};
  return run_process({kProgram, mode}, options);
}

TEST_CASE("an uncaught brisk::Error prints its message once and exits with status 1") {
  for (std::string backtrace : {"", "0"}) {
    RunResult r = run("error", backtrace);
    INFO("BRISK_BACKTRACE=" << backtrace << "\n" << output_of(r));
    CHECK(r.status == 1);
    CHECK(r.out == "started\n");
    CHECK(r.err ==
          "brisk::Error: the user's check failed: value 3 is not negative\n"
          "(set BRISK_BACKTRACE=1 for a backtrace)\n");
  }
}

TEST_CASE("a brisk::Error leaving a thread's function is reported the same way") {
  RunResult r = run("thread", "");
  INFO(output_of(r));
  CHECK(r.status == 1);
  CHECK(r.err ==
        "brisk::Error: the user's check failed: value 4 is not negative\n"
        "(set BRISK_BACKTRACE=1 for a backtrace)\n");
}

TEST_CASE("with BRISK_BACKTRACE=1 the report shows where the error was raised, by function name") {
  RunResult r = run("error", "1");
  INFO(output_of(r));
  CHECK(r.status == 1);
  CHECK(r.out == "started\n");
  CHECK_THAT(r.err, StartsWith("brisk::Error: the user's check failed: value 3 is not negative\n"
                               "Backtrace (most recent call first):\n  #0 "));
  CHECK(count(r.err, "the user's check failed") == 1);
  CHECK_THAT(r.err, Contains("(anonymous namespace)::throw_from_the_users_code(int)"));
  CHECK_THAT(r.err, Contains(" main"));
  CHECK(count(r.err, "terminate called") == 0);
  CHECK(count(r.err, "BRISK_BACKTRACE") == 0);
}

TEST_CASE("Error::backtrace() of a caught error: the stack with BRISK_BACKTRACE=1, empty without") {
  RunResult with = run("caught", "1");
  INFO(output_of(with));
  CHECK(with.status == 0);
  CHECK_THAT(with.out, StartsWith("started\nbacktrace:\n  #0 "));
  CHECK_THAT(with.out, Contains("throw_from_the_users_code(int)"));
  RunResult without = run("caught", "");
  CHECK(without.out == "started\nbacktrace:\n");
}

TEST_CASE("other exceptions keep std::terminate's report and SIGABRT") {
  RunResult r = run("runtime_error", "1");
  INFO(output_of(r));
  CHECK(r.status == 128 + SIGABRT);
  CHECK_THAT(r.err, Contains("terminate called after throwing an instance of 'std::runtime_error'"));
  CHECK_THAT(r.err, Contains("not a brisk::Error"));
  CHECK(count(r.err, "brisk::Error:") == 0);
}

TEST_CASE("the launcher reports a worker ended by an uncaught brisk::Error as a failure") {
  RunOptions options;
  options.timeout = std::chrono::seconds(60);
  RunResult r = run_process({launcher_path(), "--nproc-per-node", "2", kProgram, "error"}, options);
  INFO(output_of(r));
  CHECK(r.status != 0);
  // Both ranks fail the same check, but the launcher stops the other workers as soon as one
  // exits with an error, so the second report may never be printed.
  CHECK(count(r.err, "brisk::Error: the user's check failed: value 3 is not negative") >= 1);
  CHECK_THAT(r.err, Contains("exited with code 1"));
}

}  // namespace
