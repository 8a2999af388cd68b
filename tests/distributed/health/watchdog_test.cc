// Watchdog, two ranks in one process over one FileStore, each rank's calls through its own
// FreezableStore: one thread per group; a store that hangs while the monitor has something to
// publish does not delay the heartbeat's verdict nor, beyond about a second, the destruction; a
// stall fails the group once, at the stall timeout; after the group's own failure nothing more
// is reported.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "distributed/health/watchdog.h"
#include "distributed/store/file_store.h"
#include "tests/distributed/health/freezable_store.h"

using namespace brisk;
using namespace brisk::dist;
using namespace std::chrono_literals;

namespace {

using Clock = std::chrono::steady_clock;
using testing::FreezableStore;

// The threads of this process (ThreadSanitizer adds one of its own with the first thread
// started: one is started first).
size_t thread_count() {
  std::thread([] {}).join();
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) n += entry.is_directory();
  return n;
}

CollectiveSignature all_reduce(int64_t seq) {
  CollectiveSignature sig = CollectiveSignature::of(CollectiveKind::kAllReduce, 4, kFloat32,
                                                    CollectiveSignature::kUnused, dist::ReduceOp::SUM);
  sig.seq = seq;
  return sig;
}

// Two ranks' watchdogs, collecting the failures they report.
struct Ranks {
  Ranks(const std::string& name, const ProcessGroupOptions& options) {
    const char* dir = std::getenv("TEST_TMPDIR");
    std::string path = std::string(dir ? dir : "/tmp") + "/" + name + "_" + std::to_string(::getpid());
    ::unlink(path.c_str());
    auto file = std::make_shared<FileStore>(path, 5s);
    for (int r = 0; r < 2; ++r) stores.push_back(std::make_shared<FreezableStore>(file));
    for (int r = 0; r < 2; ++r)
      watchdogs.push_back(std::make_unique<Watchdog>(*stores[r], r, 2, options, *options.heartbeat_timeout, true,
                                                     "rank " + std::to_string(r), [this, r](const std::string& m) {
                                                       std::lock_guard<std::mutex> lock(mutex);
                                                       failures.push_back({r, m, Clock::now()});
                                                     }));
  }
  ~Ranks() {
    watchdogs.clear();
    for (auto& s : stores) s->freeze(false);
  }
  struct Failure {
    int rank;
    std::string message;
    Clock::time_point at;
  };
  std::vector<Failure> wait_for_failures(size_t n, Clock::duration within) {
    auto deadline = Clock::now() + within;
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (failures.size() >= n || Clock::now() > deadline) return failures;
      }
      std::this_thread::sleep_for(10ms);
    }
  }
  std::vector<std::shared_ptr<FreezableStore>> stores;
  std::mutex mutex;
  std::vector<Failure> failures;
  std::vector<std::unique_ptr<Watchdog>> watchdogs;
};

ProcessGroupOptions with_heartbeat(std::chrono::milliseconds timeout) {
  ProcessGroupOptions options;
  options.heartbeat_timeout = timeout;
  return options;
}

}  // namespace

TEST_CASE("Watchdog: one thread per group, joined when it is destroyed") {
  const size_t before = thread_count();
  {
    Ranks ranks("watchdog_threads", with_heartbeat(1s));
    CHECK(thread_count() == before + 2);
  }
  CHECK(thread_count() == before);
}

TEST_CASE("Watchdog: a store that hangs while the monitor has something to publish is named within the heartbeat "
          "timeout") {
  const auto timeout = 1s;  // calls give up after 0.5 s
  Ranks ranks("watchdog_hung", with_heartbeat(timeout));
  ranks.watchdogs[0]->monitor().record(all_reduce(0));
  std::this_thread::sleep_for(300ms);
  const auto frozen = Clock::now();
  ranks.stores[0]->freeze(true);  // rank 0's calls hang, as they would with the store's host stopped
  ranks.watchdogs[0]->monitor().record(all_reduce(1));
  std::vector<Ranks::Failure> failures = ranks.wait_for_failures(2, 10s);
  REQUIRE(failures.size() == 2);
  for (const auto& f : failures) {
    INFO(f.message);
    CHECK(f.at - frozen < timeout + 1s);
    if (f.rank == 0) {
      CHECK_THAT(f.message, Catch::StartsWith("rank 0: rank 0 (the store's host) is unresponsive: the store has not "
                                              "answered for "));
      CHECK_THAT(f.message, Catch::Contains("\n  rank 0: started 2, finished 0; last: all_reduce #0(numel 4, float32, "
                                            "SUM), all_reduce #1(numel 4, float32, SUM)\n  other ranks: unknown: the "
                                            "store does not answer"));
    } else {
      CHECK_THAT(f.message, Catch::StartsWith("rank 1: rank 0 is unresponsive: no heartbeat for "));
      // What rank 0 published before its calls hung.
      CHECK_THAT(f.message, Catch::Contains("\n  rank 0: started 1, finished 0; last: all_reduce #0(numel 4"));
    }
  }
  auto start = Clock::now();
  ranks.watchdogs[0].reset();
  CHECK(Clock::now() - start < 1500ms);
}

TEST_CASE("Watchdog: a stall fails the group once, at the stall timeout") {
  ProcessGroupOptions options = with_heartbeat(2s);  // its warning would come after the failure
  options.stall_timeout = 600ms;
  Ranks ranks("watchdog_stall", options);
  ranks.watchdogs[0]->monitor().record(all_reduce(0));  // rank 1 never enters it
  std::vector<Ranks::Failure> failures = ranks.wait_for_failures(1, 10s);
  std::this_thread::sleep_for(600ms);
  failures = ranks.wait_for_failures(2, 0s);
  REQUIRE(failures.size() == 1);
  CHECK(failures[0].rank == 0);
  CHECK_THAT(failures[0].message, Catch::StartsWith("rank 0: stall timeout (600 ms): waiting 0."));
  CHECK_THAT(failures[0].message,
             Catch::Contains(" s in all_reduce #0(numel 4, float32, SUM) for rank 1, which has not entered it (an "
                             "infinite loop, a deadlock, or long work outside collectives)\nflight recorder "));
}

TEST_CASE("Watchdog: after the group's own failure nothing more is reported") {
  ProcessGroupOptions options = with_heartbeat(2s);
  options.stall_timeout = 300ms;
  Ranks ranks("watchdog_failed", options);
  ranks.watchdogs[0]->monitor().record(all_reduce(0));
  const std::string message = ranks.watchdogs[0]->failure("all_reduce #0 failed: a peer died", 0);
  CHECK_THAT(message, Catch::StartsWith("rank 0: all_reduce #0 failed: a peer died. Ranks that never entered "
                                        "all_reduce #0: [1]\nflight recorder "));
  std::this_thread::sleep_for(1s);  // past the stall timeout
  CHECK(ranks.wait_for_failures(1, 0s).empty());
}
