// The ThreadSanitizer build (--config=tsan) finds a race: race_program, built under the same
// configuration and run with the test's environment (TSAN_OPTIONS, and the OpenMP runtime with
// its ThreadSanitizer tool), is reported for a race between two std::threads and for one
// inside an OpenMP parallel region, and not for a race-free parallel loop (OpenMP's own
// synchronization is not mistaken for a race). In other builds the programs only have to run.
#include <sys/wait.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

#if defined(__SANITIZE_THREAD__)
constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool kThreadSanitizer = true;
#else
constexpr bool kThreadSanitizer = false;
#endif
#else
constexpr bool kThreadSanitizer = false;
#endif

namespace {

struct Run {
  std::string output;  // stdout and stderr
  int status = -1;     // exit status
};

Run run_race_program(const std::string& mode) {
  const char* program = std::getenv("RACE_PROGRAM");
  REQUIRE(program != nullptr);
  std::string command = std::string(program) + " " + mode + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  Run run;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) run.output.append(buffer.data(), n);
  int status = ::pclose(pipe);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

bool reported(const Run& run) { return run.output.find("ThreadSanitizer: data race") != std::string::npos; }

}  // namespace

TEST_CASE("a race between two std::threads is reported") {
  Run run = run_race_program("threads");
  INFO(run.output);
  CHECK(run.output.find("ran threads ") != std::string::npos);
  if (kThreadSanitizer) {
    CHECK(reported(run));
    CHECK(run.output.find("increment_many") != std::string::npos);  // the report names the racing function
    CHECK(run.status == 66);                                        // and fails the program
  } else {
    CHECK(run.status == 0);
  }
}

TEST_CASE("a race between the threads of an OpenMP parallel region is reported") {
  Run run = run_race_program("openmp");
  INFO(run.output);
  CHECK(run.output.find("ran openmp ") != std::string::npos);
  if (kThreadSanitizer) {
    CHECK(reported(run));
    CHECK(run.output.find("increment_many") != std::string::npos);
  }
}

TEST_CASE("a race-free OpenMP parallel loop is not reported") {
  Run run = run_race_program("openmp_clean");
  INFO(run.output);
  // Sum of i^2 for i < 4096: (n-1) n (2n-1) / 6 with n = 4096.
  CHECK(run.output.find("ran openmp_clean 22898104320") != std::string::npos);
  CHECK_FALSE(reported(run));
  CHECK(run.status == 0);
}
