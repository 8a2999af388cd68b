// DesyncMonitor with three ranks in one process over one FileStore: signatures published in
// batches and compared by steps on a thread per rank (no false alarm across many batches, the
// first difference reported with the odd rank), the diagnosis of a failed collective with the
// check off (the mismatch, or the ranks that never entered it), a store that is gone (not
// asked again) or hangs (asked again later), the flight recorder and the stall check.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "distributed/health/desync_monitor.h"
#include "distributed/store/file_store.h"
#include "distributed/store/tcp_store.h"
#include "tests/distributed/health/freezable_store.h"
#include "tests/distributed/health/repeating.h"

using namespace brisk;
using namespace brisk::dist;
using namespace std::chrono_literals;

namespace {

using testing::FreezableStore;
using testing::Repeating;

// How long the monitors' store calls may take in these tests.
constexpr auto kCallTimeout = 500ms;

// Steps `monitors` every kStepInterval, each on a thread of its own, as groups' Watchdogs do.
std::vector<std::unique_ptr<Repeating>> step(const std::vector<std::unique_ptr<DesyncMonitor>>& monitors) {
  std::vector<std::unique_ptr<Repeating>> stepping;
  for (const auto& m : monitors)
    stepping.push_back(std::make_unique<Repeating>(DesyncMonitor::kStepInterval, [&m] { m->step(); }));
  return stepping;
}

std::shared_ptr<Store> fresh_store(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + name + "_" + std::to_string(::getpid());
  ::unlink(path.c_str());
  return std::make_shared<FileStore>(path, 5s);
}

CollectiveSignature all_reduce(int64_t seq, int64_t numel) {
  CollectiveSignature sig = CollectiveSignature::of(CollectiveKind::kAllReduce, numel, kFloat32,
                                                    CollectiveSignature::kUnused, dist::ReduceOp::SUM);
  sig.seq = seq;
  return sig;
}

// Three monitors (ranks 0..2) on one store, collecting what their handlers report.
struct Ranks {
  explicit Ranks(std::shared_ptr<Store> store, bool verify) {
    for (int r = 0; r < 3; ++r) {
      monitors.push_back(std::make_unique<DesyncMonitor>(
          *store, r, 3, verify,
          [this, r](const std::string& m) {
            std::lock_guard<std::mutex> lock(mutex);
            reports.emplace_back(r, m);
          },
          kCallTimeout));
    }
    stepping = step(monitors);
  }
  std::vector<std::pair<int, std::string>> wait_for_reports(size_t n, std::chrono::seconds within) {
    auto deadline = std::chrono::steady_clock::now() + within;
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (reports.size() >= n || std::chrono::steady_clock::now() > deadline) return reports;
      }
      std::this_thread::sleep_for(10ms);
    }
  }
  std::mutex mutex;
  std::vector<std::pair<int, std::string>> reports;
  std::vector<std::unique_ptr<DesyncMonitor>> monitors;
  std::vector<std::unique_ptr<Repeating>> stepping;  // stopped before the monitors go
};

const std::string kMismatchAt1000 =
    "collective desync at #1000: ranks [0, 2] called all_reduce #1000(numel 4, float32, SUM); ranks [1] called "
    "all_reduce #1000(numel 5, float32, SUM); odd rank: 1";

}  // namespace

TEST_CASE("DesyncMonitor: equal calls across many batches pass; the first difference names the odd rank") {
  Ranks ranks(fresh_store("monitor_verify"), true);
  // More collectives than the monitor keeps (kKeptBatches * kBatch), recorded in bursts.
  REQUIRE(DesyncMonitor::kKeptBatches * DesyncMonitor::kBatch < 1000);
  for (int64_t seq = 0; seq < 1000; ++seq) {
    for (auto& m : ranks.monitors) m->record(all_reduce(seq, seq % 7));
    if (seq % 100 == 0) std::this_thread::sleep_for(60ms);
  }
  std::this_thread::sleep_for(300ms);
  CHECK(ranks.wait_for_reports(1, 0s).empty());
  // #1000 differs on rank 1: every rank's monitor reports it, naming rank 1.
  for (int r = 0; r < 3; ++r) ranks.monitors[r]->record(all_reduce(1000, r == 1 ? 5 : 4));
  auto reports = ranks.wait_for_reports(3, 10s);
  REQUIRE(reports.size() == 3);
  for (const auto& [rank, message] : reports) {
    INFO("rank " << rank);
    CHECK(message == kMismatchAt1000);
  }
}

TEST_CASE("DesyncMonitor: with the check off nothing is reported, and diagnose() explains the failure") {
  Ranks ranks(fresh_store("monitor_diagnose"), false);
  for (int64_t seq = 0; seq < 1000; ++seq)
    for (auto& m : ranks.monitors) m->record(all_reduce(seq, 3));
  for (int r = 0; r < 3; ++r) ranks.monitors[r]->record(all_reduce(1000, r == 1 ? 5 : 4));
  // Rank 2 never enters #1001.
  for (int r = 0; r < 2; ++r) ranks.monitors[r]->record(all_reduce(1001, 3));
  std::this_thread::sleep_for(200ms);
  CHECK(ranks.wait_for_reports(1, 0s).empty());

  CHECK(ranks.monitors[0]->diagnose(1000) == kMismatchAt1000);
  CHECK(ranks.monitors[1]->diagnose(1001) == "Ranks that never entered all_reduce #1001: [2]");
  CHECK(ranks.monitors[0]->diagnose(999) ==
        "Ranks that never entered all_reduce #999: none (every rank entered it; a peer died or dropped out during it)");
  CHECK_THAT(ranks.monitors[0]->diagnose(3), Catch::Contains("unknown (no longer recorded)"));
}

TEST_CASE("DesyncMonitor: two ranks that disagree have no odd one") {
  auto store = fresh_store("monitor_two");
  std::vector<std::string> reports;
  std::mutex mutex;
  {
    std::vector<std::unique_ptr<DesyncMonitor>> monitors;
    for (int r = 0; r < 2; ++r)
      monitors.push_back(std::make_unique<DesyncMonitor>(
          *store, r, 2, true,
          [&](const std::string& m) {
            std::lock_guard<std::mutex> lock(mutex);
            reports.push_back(m);
          },
          kCallTimeout));
    auto stepping = step(monitors);
    for (int r = 0; r < 2; ++r) {
      CollectiveSignature sig = CollectiveSignature::of(CollectiveKind::kBroadcast, 8, kInt64, r);
      monitors[r]->record(sig);
    }
    auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (reports.size() == 2) break;
      }
      std::this_thread::sleep_for(10ms);
    }
  }
  REQUIRE(reports.size() == 2);
  CHECK(reports[0] ==
        "collective desync at #0: ranks [0] called broadcast #0(numel 8, int64, root 0); ranks [1] called broadcast "
        "#0(numel 8, int64, root 1); no majority, so no single odd rank");
}

TEST_CASE("DesyncMonitor: a store that went away is not asked again") {
  TCPStoreOptions o;
  o.port = 0;
  o.is_master = true;
  o.timeout = 30s;  // a reconnecting client would wait this long
  auto server = std::make_shared<TCPStore>("127.0.0.1", o);
  o.is_master = false;
  o.port = server->port();
  auto client = std::make_shared<TCPStore>("127.0.0.1", o);
  DesyncMonitor monitor(
      *client, 1, 2, true, [](const std::string&) {}, kCallTimeout);
  monitor.record(all_reduce(0, 4));
  monitor.step();
  CHECK_THAT(DesyncMonitor(
                 *client, 0, 2, true, [](const std::string&) {}, kCallTimeout)
                 .flight_record(),
             Catch::Contains("rank 1: started 1, finished 0"));
  server.reset();  // rank 0, the store's host, exits first
  auto start = std::chrono::steady_clock::now();
  for (int64_t seq = 1; seq < 4; ++seq) {
    monitor.record(all_reduce(seq, 4));
    monitor.step();
  }
  // The first call failed (well within its timeout: a refused connection); no later step asked.
  CHECK(std::chrono::steady_clock::now() - start < kCallTimeout);
}

TEST_CASE("DesyncMonitor: a store call that gives up is tried again at a later step") {
  auto file = fresh_store("monitor_hung");
  auto store = std::make_shared<FreezableStore>(file);
  DesyncMonitor monitor(
      *store, 0, 2, true, [](const std::string&) {}, 200ms);
  DesyncMonitor peer(
      *file, 1, 2, true, [](const std::string&) {}, 200ms);
  monitor.record(all_reduce(0, 4));
  store->freeze(true);
  auto start = std::chrono::steady_clock::now();
  monitor.step();
  CHECK(std::chrono::steady_clock::now() - start >= 180ms);
  CHECK(std::chrono::steady_clock::now() - start < 1s);
  CHECK_THAT(peer.flight_record(), Catch::Contains("rank 0: nothing published"));
  store->freeze(false);
  monitor.step();
  CHECK_THAT(peer.flight_record(), Catch::Contains("rank 0: started 1, finished 0; last: all_reduce #0(numel 4"));
}

TEST_CASE("DesyncMonitor: the flight recorder lists what each rank started and finished") {
  Ranks ranks(fresh_store("monitor_flight"), true);
  // Ranks 0 and 1 start #0..#9 and finish #0..#8; rank 2 starts and finishes #0..#7 only.
  for (int r = 0; r < 3; ++r) {
    int64_t started = r == 2 ? 8 : 10;
    for (int64_t seq = 0; seq < started; ++seq) ranks.monitors[r]->record(all_reduce(seq, seq + 1));
    ranks.monitors[r]->finished(r == 2 ? 7 : 8);
  }
  std::this_thread::sleep_for(300ms);  // published by the monitors' steps
  auto last = [](std::initializer_list<int64_t> seqs) {
    std::string out;
    for (int64_t seq : seqs) out += (out.empty() ? "" : ", ") + all_reduce(seq, seq + 1).str();
    return out;
  };
  const std::string expected = "flight recorder (the last collectives each rank started; a peer's as it last published "
                               "them):\n  rank 0: started 10, "
                               "finished 9; last: " +
                               last({6, 7, 8, 9}) + "\n  rank 1: started 10, finished 9; last: " + last({6, 7, 8, 9}) +
                               "\n  rank 2: started 8, finished 8; last: " + last({4, 5, 6, 7});
  CHECK(ranks.monitors[0]->flight_record() == expected);
  CHECK(ranks.monitors[2]->flight_record() == expected);
  CHECK(ranks.wait_for_reports(1, 0s).empty());
}

TEST_CASE("DesyncMonitor: the flight recorder of a rank whose peers published nothing") {
  auto store = fresh_store("monitor_flight_alone");
  DesyncMonitor monitor(
      *store, 1, 2, true, [](const std::string&) {}, kCallTimeout);
  CHECK(monitor.flight_record() == "flight recorder (the last collectives each rank started; a peer's as it last "
                                   "published them):\n  rank 0: nothing published\n  rank 1: started 0, "
                                   "finished 0; last: none");
  CHECK(monitor.flight_record(false) == "flight recorder (the last collectives each rank started; a peer's as it last "
                                        "published them):\n  rank 1: started 0, finished 0; last: none\n  "
                                        "other ranks: unknown: the store does not answer");
}

TEST_CASE("DesyncMonitor: a rank waiting in a collective names, once, the peers that have not entered it") {
  auto store = fresh_store("monitor_stall");
  std::vector<std::pair<int, std::string>> warnings;
  std::mutex mutex;
  std::vector<std::unique_ptr<DesyncMonitor>> monitors;
  for (int r = 0; r < 3; ++r) {
    monitors.push_back(std::make_unique<DesyncMonitor>(
        *store, r, 3, true, [](const std::string&) {}, kCallTimeout));
    monitors[r]->on_stall(300ms, [&, r](const std::string& m) {
      std::lock_guard<std::mutex> lock(mutex);
      warnings.emplace_back(r, m);
    });
  }
  // #0 completes everywhere; ranks 0 and 2 then wait in #1, which rank 1 never enters.
  for (int r = 0; r < 3; ++r) {
    monitors[r]->record(all_reduce(0, 4));
    monitors[r]->finished(0);
  }
  for (int r : {0, 2}) monitors[r]->record(all_reduce(1, 4));
  for (auto& m : monitors) m->step();  // every rank's progress published; nobody waited 300 ms yet
  CHECK(warnings.empty());
  std::this_thread::sleep_for(400ms);
  for (int round = 0; round < 3; ++round)
    for (auto& m : monitors) m->step();
  REQUIRE(warnings.size() == 2);  // ranks 0 and 2, once each; rank 1 waits on nothing
  for (const auto& [rank, message] : warnings) {
    INFO(message);
    CHECK(rank != 1);
    CHECK_THAT(message, Catch::StartsWith("waiting 0."));
    CHECK_THAT(message,
               Catch::EndsWith(" s in all_reduce #1(numel 4, float32, SUM) for rank 1, which has not entered it (an "
                               "infinite loop, a deadlock, or long work outside collectives)"));
  }
}
