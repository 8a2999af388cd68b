// Heartbeat with three ranks in one process over one FileStore: no false alarm while every
// rank beats or after one left; a rank whose store calls freeze (as a SIGSTOPped process's
// would) is named by the others within the timeout, and the frozen rank itself names the
// store's host; a process stopped and continued blames nobody itself; the timeout's resolution
// from the options and BRISK_HEARTBEAT_TIMEOUT.
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "distributed/health/heartbeat.h"
#include "distributed/store/file_store.h"
#include "tests/distributed/health/freezable_store.h"
#include "tests/distributed/health/repeating.h"

using namespace brisk;
using namespace brisk::dist;
using namespace std::chrono_literals;

namespace {

using Clock = std::chrono::steady_clock;

std::shared_ptr<Store> fresh_store(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + name + "_" + std::to_string(::getpid());
  ::unlink(path.c_str());
  return std::make_shared<FileStore>(path, 5s);
}

using testing::FreezableStore;
using testing::Repeating;

// A Heartbeat beaten every 5 ms, as a group's Watchdog beats it; destroyed (leaving its mark)
// after the beating stopped.
struct Beating {
  Beating(const Store& store, int rank, int size, std::chrono::milliseconds timeout,
          Heartbeat::FailureHandler on_failure)
      : heartbeat(store, rank, size, timeout, std::move(on_failure)), beating(5ms, [this] { heartbeat.beat(); }) {}
  Heartbeat heartbeat;
  Repeating beating;
};

struct Report {
  int rank;
  std::string message;
  bool store_answers;
  Clock::duration after;  // since the freeze
};

// Three ranks' heartbeats, each through its own FreezableStore over one FileStore.
struct Ranks {
  Ranks(const std::string& name, std::chrono::milliseconds timeout) {
    auto store = fresh_store(name);
    for (int r = 0; r < 3; ++r) stores.push_back(std::make_shared<FreezableStore>(store));
    for (int r = 0; r < 3; ++r) {
      beats.push_back(
          std::make_unique<Beating>(*stores[r], r, 3, timeout, [this, r](const std::string& m, bool store_answers) {
            std::lock_guard<std::mutex> lock(mutex);
            reports.push_back({r, m, store_answers, Clock::now() - frozen_at});
          }));
    }
  }
  ~Ranks() {
    beats.clear();
    for (auto& s : stores) s->freeze(false);  // lets a round stuck on a frozen store finish
  }
  void freeze(int rank) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      frozen_at = Clock::now();
    }
    stores[rank]->freeze(true);
  }
  std::vector<Report> wait_for_reports(size_t n, Clock::duration within) {
    auto deadline = Clock::now() + within;
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (reports.size() >= n || Clock::now() > deadline) return reports;
      }
      std::this_thread::sleep_for(10ms);
    }
  }
  std::vector<std::shared_ptr<FreezableStore>> stores;
  std::mutex mutex;
  Clock::time_point frozen_at = Clock::now();
  std::vector<Report> reports;
  std::vector<std::unique_ptr<Beating>> beats;
};

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

TEST_CASE(
    "Heartbeat: the interval is a tenth of the timeout, within [10 ms, 1 s]; a call may take half, at most 0.5 s") {
  CHECK(Heartbeat::interval_for(30s) == 1s);
  CHECK(Heartbeat::interval_for(3s) == 300ms);
  CHECK(Heartbeat::interval_for(50ms) == 10ms);
  CHECK(Heartbeat::call_timeout_for(30s) == 500ms);
  CHECK(Heartbeat::call_timeout_for(600ms) == 300ms);
  CHECK(Heartbeat::call_timeout_for(0ms) == 500ms);
}

TEST_CASE("Heartbeat: beat() does a round once an interval has passed, and says whether the store answered it") {
  auto file = fresh_store("heartbeat_rounds");
  auto store = std::make_shared<FreezableStore>(file);
  Heartbeat heartbeat(*store, 0, 1, 1s, [](const std::string&, bool) {});  // interval 100 ms, calls 500 ms
  CHECK(heartbeat.beat());
  CHECK(heartbeat.beat());  // within the interval: no round
  CHECK(file->add("heartbeat/0", 0) == 1);
  std::this_thread::sleep_for(120ms);
  CHECK(heartbeat.beat());
  CHECK(file->add("heartbeat/0", 0) == 2);
  store->freeze(true);
  std::this_thread::sleep_for(120ms);
  auto start = Clock::now();
  CHECK_FALSE(heartbeat.beat());  // the round's call gave up
  CHECK(Clock::now() - start >= 450ms);
  CHECK(Clock::now() - start < 1s);
  CHECK_FALSE(heartbeat.beat());  // within the interval: as the last round
  store->freeze(false);
  std::this_thread::sleep_for(120ms);
  CHECK(heartbeat.beat());
  CHECK(file->add("heartbeat/0", 0) == 3);
}

TEST_CASE("Heartbeat: ranks that beat, or left, are never reported") {
  Ranks ranks("heartbeat_quiet", 300ms);
  std::this_thread::sleep_for(1200ms);  // four timeouts
  ranks.beats[2].reset();               // rank 2 destroys its group first
  std::this_thread::sleep_for(1200ms);
  CHECK(ranks.wait_for_reports(1, 0s).empty());
}

TEST_CASE("Heartbeat: a rank that stops is named by the others within the timeout; it names the store's host") {
  const auto timeout = 500ms;
  Ranks ranks("heartbeat_stop", timeout);
  std::this_thread::sleep_for(300ms);
  ranks.freeze(1);
  std::vector<Report> reports = ranks.wait_for_reports(3, 10s);
  REQUIRE(reports.size() == 3);
  for (const Report& r : reports) {
    INFO("rank " << r.rank << " after " << seconds(r.after) << " s: " << r.message);
    // Found at the timeout (counted from the last beat read, up to an interval before the
    // freeze), plus a round of reads and a watcher interval; generously bounded for a busy machine.
    CHECK(r.after >= timeout - Heartbeat::interval_for(timeout));
    CHECK(r.after < timeout + 1s);
    if (r.rank == 1) {
      CHECK_THAT(r.message, Catch::StartsWith("rank 0 (the store's host) is unresponsive: the store has not answered "
                                              "for "));
      CHECK_THAT(r.message, Catch::EndsWith(" s (heartbeat timeout 0.5 s)"));
      CHECK_FALSE(r.store_answers);
    } else {
      CHECK_THAT(r.message, Catch::StartsWith("rank 1 is unresponsive: no heartbeat for "));
      CHECK_THAT(r.message, Catch::EndsWith(" s (heartbeat timeout 0.5 s); it is stopped, hung or dead"));
      CHECK(r.store_answers);
    }
  }
  // Each rank reports once.
  std::this_thread::sleep_for(2 * timeout);
  CHECK(ranks.wait_for_reports(4, 0s).size() == 3);
}

TEST_CASE("Heartbeat: a Heartbeat whose store hangs is destroyed within about a second") {
  Ranks ranks("heartbeat_hung", 200ms);
  ranks.freeze(0);
  ranks.wait_for_reports(3, 5s);
  auto start = Clock::now();
  ranks.beats[0].reset();
  CHECK(Clock::now() - start < 1500ms);
}

// Rank 1 of the next test, in a process of its own: exits 1 if its heartbeat reported
// anything in the 2 s after it was continued. Its store answers in 100 ms, so its first round
// after SIGCONT ends well after it was continued: the stop must not count as the store's
// silence. Hidden ([.]): only that test runs it, naming its tag.
TEST_CASE("Heartbeat: rank 1 of the SIGSTOP test", "[.][heartbeat_resumed_child]") {
  const char* path = std::getenv("BRISK_HEARTBEAT_RESUMED_STORE");
  REQUIRE(path != nullptr);
  // Both heartbeats start together, however long this process took to start.
  auto store = std::make_shared<FileStore>(path, 5s);
  store->set("started/1", std::string("1"));
  store->wait({"started/0"}, 5s);
  bool reported = false;
  {
    auto slow = std::make_shared<FreezableStore>(store, 100ms);
    Beating beat(*slow, 1, 2, 500ms, [&](const std::string& m, bool) {
      std::fprintf(stderr, "rank 1 reported: %s\n", m.c_str());
      reported = true;
    });
    std::this_thread::sleep_for(4s);
  }
  ::_exit(reported ? 1 : 0);
}

TEST_CASE("Heartbeat: a process stopped (SIGSTOP) and continued does not blame the store or its peers") {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/heartbeat_resumed_" + std::to_string(::getpid());
  ::unlink(path.c_str());
  // The child executes this binary again, for the test above, rather than running rank 1 in
  // a copy of this process: earlier test cases ran threads here, and a child forked from a
  // threaded process may not start threads of its own (ThreadSanitizer refuses it, and
  // locks held by the parent's other threads at the fork stay held in the child).
  std::string exe = "/proc/self/exe", tag = "[heartbeat_resumed_child]",
              store_env = "BRISK_HEARTBEAT_RESUMED_STORE=" + path;
  std::vector<char*> argv{exe.data(), tag.data(), nullptr};
  std::vector<char*> envp;
  for (char** entry = environ; *entry != nullptr; ++entry) envp.push_back(*entry);
  envp.push_back(store_env.data());
  envp.push_back(nullptr);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::execve(exe.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  auto store = std::make_shared<FileStore>(path, 5s);
  store->wait({"started/1"}, 10s);
  store->set("started/0", std::string("1"));
  std::vector<std::string> reports;
  std::mutex mutex;
  {
    Beating beat(*store, 0, 2, 500ms, [&](const std::string& m, bool) {
      std::lock_guard<std::mutex> lock(mutex);
      reports.push_back(m);
    });
    std::this_thread::sleep_for(500ms);
    ::kill(child, SIGSTOP);
    std::this_thread::sleep_for(1500ms);  // three timeouts
    ::kill(child, SIGCONT);
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  std::lock_guard<std::mutex> lock(mutex);
  // Rank 0 named the stopped rank (or, had it stopped holding the FileStore's lock, the store).
  REQUIRE(reports.size() == 1);
  CHECK_THAT(reports[0], Catch::Contains(" is unresponsive: "));
  ::unlink(path.c_str());
}

TEST_CASE("Heartbeat: the timeout comes from the options, else BRISK_HEARTBEAT_TIMEOUT, else the default") {
  ProcessGroupOptions options;
  ::unsetenv("BRISK_HEARTBEAT_TIMEOUT");
  CHECK(heartbeat_timeout(options) == kDefaultHeartbeatTimeout);
  ::setenv("BRISK_HEARTBEAT_TIMEOUT", "2.5", 1);
  CHECK(heartbeat_timeout(options) == 2500ms);
  ::setenv("BRISK_HEARTBEAT_TIMEOUT", "0", 1);
  CHECK(heartbeat_timeout(options) == 0ms);
  options.heartbeat_timeout = 7s;
  CHECK(heartbeat_timeout(options) == 7s);
  options.heartbeat_timeout = -1ms;
  CHECK_THROWS_WITH(heartbeat_timeout(options),
                    "ProcessGroupOptions::heartbeat_timeout must not be negative, got -1 ms");
  options.heartbeat_timeout.reset();
  for (const char* bad : {"ten", "-3", "5s", "inf"}) {
    ::setenv("BRISK_HEARTBEAT_TIMEOUT", bad, 1);
    CHECK_THROWS_WITH(heartbeat_timeout(options), Catch::StartsWith(std::string("BRISK_HEARTBEAT_TIMEOUT='") + bad +
                                                                    "' is not a number of seconds"));
  }
  ::unsetenv("BRISK_HEARTBEAT_TIMEOUT");
}
