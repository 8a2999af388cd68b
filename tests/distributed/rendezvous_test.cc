// init_process_group's rendezvous (distributed/rendezvous.h): launch_worker processes started
// by hand, so that the world size can exceed the processes started; and its options.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "distributed/launch/free_port.h"
#include "distributed/rendezvous.h"
#include "tensor/error.h"
#include "tests/tools/launch/process_runner.h"

using namespace brisk;
using testing::RunOptions;
using testing::RunResult;

namespace {

const char* const kWorker = "tests/distributed/launch_worker";

// Starts `ranks` of a world of `world` (WORLD_SIZE) running launch_worker's allreduce, each
// with `env` added, and returns their results in the order of `ranks`.
std::vector<RunResult> start_ranks(const std::vector<int>& ranks, int world,
                                   const std::vector<std::pair<std::string, std::string>>& env) {
  const std::string port = std::to_string(launch::free_port("127.0.0.1"));
  std::vector<RunResult> results(ranks.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < ranks.size(); ++i) {
    threads.emplace_back([&, i] {
      const int r = ranks[i];
      RunOptions options;
      options.timeout = std::chrono::seconds(60);
      options.env = {{"RANK", std::to_string(r)},
                     {"WORLD_SIZE", std::to_string(world)},
                     {"MASTER_ADDR", "127.0.0.1"},
                     {"MASTER_PORT", port},
                     {"BRISK_TEST_TIMEOUT_MS", "60000"}};
      options.env.insert(options.env.end(), env.begin(), env.end());
      results[i] = testing::run_process({kWorker, "allreduce"}, options);
    });
  }
  for (auto& t : threads) t.join();
  return results;
}

}  // namespace

TEST_CASE("rendezvous: a rank never started is named within the rendezvous timeout, with progress lines before") {
  // The collectives' timeout (BRISK_TEST_TIMEOUT_MS) is 60 s: only the rendezvous's own ends this.
  auto results =
      start_ranks({0, 1}, 3, {{"BRISK_RENDEZVOUS_TIMEOUT", "3"}, {"BRISK_RENDEZVOUS_PROGRESS_INTERVAL", "1"}});
  for (int r = 0; r < 2; ++r) {
    const RunResult& result = results[static_cast<size_t>(r)];
    INFO("rank " << r << "\n" << testing::output_of(result));
    CHECK(result.status == 1);
    CHECK(result.seconds < 15);
    CHECK(testing::count(result.err, "rendezvous (rank " + std::to_string(r) +
                                         " of 3): timed out after 3 s waiting for ranks [2] of 3: 2 arrived") == 1);
    CHECK(testing::count(result.err, "The world size 3 came from WORLD_SIZE") == 1);
  }
  // Rank 0 alone reports progress, at 1 s and 2 s (maybe 3 s) before its 3 s timeout.
  const int progress = testing::count(results[0].err, "rendezvous: waiting for ranks [2] of 3: 2 arrived, ");
  INFO(testing::output_of(results[0]));
  CHECK(progress >= 2);
  CHECK(progress <= 3);
  CHECK(testing::count(results[0].err, "(world size from WORLD_SIZE=3, timeout 3 s)") == progress);
  CHECK(testing::count(results[1].err, "rendezvous: waiting") == 0);
}

TEST_CASE("rendezvous: without rank 0, the others fail within the rendezvous timeout naming it") {
  // Nobody hosts the store; the collectives' (and the store's) timeout is 60 s.
  auto results = start_ranks({1}, 2, {{"BRISK_RENDEZVOUS_TIMEOUT", "2"}});
  INFO(testing::output_of(results[0]));
  CHECK(results[0].status == 1);
  CHECK(results[0].seconds < 15);
  CHECK(testing::count(results[0].err, "rendezvous (rank 1 of 2): cannot join the store that rank 0 hosts at "
                                       "127.0.0.1:") == 1);
  CHECK(testing::count(results[0].err, "cannot connect within 2000 ms") == 1);
}

TEST_CASE("rendezvous: a complete world starts without a progress line") {
  auto results = start_ranks({0, 1}, 2, {});
  for (int r = 0; r < 2; ++r) {
    const RunResult& result = results[static_cast<size_t>(r)];
    INFO("rank " << r << "\n" << testing::output_of(result));
    CHECK(result.status == 0);
    CHECK(testing::count(result.out, "of 2: sum 3") == 1);
    CHECK(testing::count(result.err, "rendezvous") == 0);
  }
}

TEST_CASE("rendezvous: its timeout and progress interval come from the options, else the environment") {
  ::unsetenv("BRISK_RENDEZVOUS_TIMEOUT");
  ::unsetenv("BRISK_RENDEZVOUS_PROGRESS_INTERVAL");
  dist::ProcessGroupOptions options;
  CHECK(dist::rendezvous_timeout(options) == dist::kDefaultRendezvousTimeout);
  CHECK(dist::rendezvous_progress_interval(options) == dist::kDefaultRendezvousProgressInterval);
  ::setenv("BRISK_RENDEZVOUS_TIMEOUT", "2.5", 1);
  ::setenv("BRISK_RENDEZVOUS_PROGRESS_INTERVAL", "0.5", 1);
  CHECK(dist::rendezvous_timeout(options) == std::chrono::milliseconds(2500));
  CHECK(dist::rendezvous_progress_interval(options) == std::chrono::milliseconds(500));
  options.rendezvous_timeout = std::chrono::seconds(7);
  options.rendezvous_progress_interval = std::chrono::seconds(1);
  CHECK(dist::rendezvous_timeout(options) == std::chrono::seconds(7));
  CHECK(dist::rendezvous_progress_interval(options) == std::chrono::seconds(1));
  options.rendezvous_timeout = std::chrono::milliseconds(0);
  CHECK_THROWS_WITH(dist::rendezvous_timeout(options), Catch::Contains("rendezvous_timeout must be positive"));
  options = {};
  for (const char* bad : {"0", "-1", "x", "5s"}) {
    ::setenv("BRISK_RENDEZVOUS_TIMEOUT", bad, 1);
    CHECK_THROWS_WITH(dist::rendezvous_timeout(options),
                      Catch::StartsWith(std::string("BRISK_RENDEZVOUS_TIMEOUT='") + bad + "' is not a number"));
  }
  ::unsetenv("BRISK_RENDEZVOUS_TIMEOUT");
  ::unsetenv("BRISK_RENDEZVOUS_PROGRESS_INTERVAL");
}
