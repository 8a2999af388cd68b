#pragma once
// run_process: runs a program to completion with a hard timeout and returns its exit status
// and everything it wrote. Multi-process tests run the launcher through run_launcher.h, which
// builds on it; run_process itself is for what that does not cover (a launcher started under
// `ip netns exec`, from several threads).
//
//   RunOptions options;
//   options.timeout = std::chrono::seconds(30);
//   RunResult r = run_process({"/bin/echo", "hi"}, options);
//   REQUIRE(r.status == 0);
//   REQUIRE(count(r.out, "hi") == 1);
//
// Bazel runs tests from the runfiles root, where the launcher and the workers that a test
// lists in `data` are found by their workspace path (e.g. "tests/distributed/worker").
#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace brisk::testing {

struct RunOptions {
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
  // Added to (or replacing in) the test's own environment.
  std::vector<std::pair<std::string, std::string>> env;
  // When set: once stdout and stderr together contain `signal_after` `signal_after_count`
  // times, `signal` is sent to the process (e.g. SIGTERM once every worker printed "ready").
  int signal = 0;
  std::string signal_after;
  int signal_after_count = 1;
};

struct RunResult {
  // The status as a shell reports it (exit code, or 128 + signal); -1 after a timeout.
  int status = -1;
  bool timed_out = false;
  std::string out;
  std::string err;
  double seconds = 0;  // wall time until the process ended (or was killed at the timeout)
};

// argv[0] is a path (no PATH lookup). After the timeout the process gets SIGKILL; the
// launcher's workers die with it (they are started with PR_SET_PDEATHSIG).
RunResult run_process(const std::vector<std::string>& argv, const RunOptions& options = {});

// Where the launcher binary is inside the runfiles: "tools/launch/launch".
std::string launcher_path();

// The environment of every mpirun a test starts (mpirun passes it on to its processes):
// - Open MPI's session directory (PMIx's sockets and shared-memory store) and its shared-memory
//   transport files (btl vader, else in /dev/shm) in a directory of this test process's own under
//   /tmp, removed at exit: they are named by process id, and the sandboxes of two tests running
//   at once reuse process ids, so two jobs would otherwise use each other's files and crash.
// - Under --config=asan, ASAN_OPTIONS with leak detection off. Open MPI leaks its own allocations at
//   MPI_Finalize (its components are unloaded first, so LeakSanitizer cannot even name them);
//   Brisk's code in those processes is leak-checked by the same tests over Gloo.
std::vector<std::pair<std::string, std::string>> mpirun_env();

// "stdout:\n<out>\nstderr:\n<err>", for a failing check to show (INFO).
std::string output_of(const RunResult& result);

// Non-overlapping occurrences of `needle` in `text`.
int count(const std::string& text, const std::string& needle);

// The lines of `text` that start with `prefix`, e.g. "[rank 2] ".
std::vector<std::string> lines_starting_with(const std::string& text, const std::string& prefix);

}  // namespace brisk::testing
