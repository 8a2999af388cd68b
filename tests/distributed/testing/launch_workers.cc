#include "tests/distributed/testing/launch_workers.h"

#include <catch2/catch.hpp>
#include <cstdlib>

#include "cuda/device.h"

namespace brisk::testing {

std::string test_worker_device() {
  const char* device = std::getenv("BRISK_TEST_WORKER_DEVICE");
  return device != nullptr ? device : "cpu";
}

std::vector<int> test_worlds(const std::vector<int>& wanted) {
  if (test_worker_device() != "nccl") return wanted;
  const int gpus = cuda::device_count();
  std::vector<int> worlds;
  for (int world : wanted)
    if (world <= gpus) worlds.push_back(world);
  if (worlds.empty() && gpus > 0) worlds.push_back(gpus);
  return worlds;
}

bool two_ranks_possible() {
  if (test_worlds({2}) == std::vector<int>{2}) return true;
  WARN("skipped: two ranks need two GPUs with --device " << test_worker_device());
  return false;
}

RunResult launch_workers(const std::string& worker, int world, const std::vector<std::string>& args,
                         std::chrono::seconds timeout) {
  std::vector<std::string> argv{"--nproc-per-node", std::to_string(world), worker, "--device", test_worker_device()};
  argv.insert(argv.end(), args.begin(), args.end());
  RunOptions options;
  options.timeout = timeout;
  return run_launcher(argv, options);
}

void check_all_scenarios(const std::string& worker, const std::vector<std::string>& names,
                         const std::vector<int>& worlds) {
  const std::vector<int> runnable = test_worlds(worlds);
  REQUIRE_FALSE(runnable.empty());
  for (int world : runnable) {
    RunResult r = launch_workers(worker, world, {"all"});
    INFO("world " << world << " on " << test_worker_device() << "\n" << output_of(r));
    CHECK(r.status == 0);
    CHECK(missing_ok_lines(r, world, names) == std::vector<std::string>{});
  }
}

std::vector<std::string> missing_ok_lines(const RunResult& result, int world, const std::vector<std::string>& names) {
  std::vector<std::string> missing;
  for (const std::string& name : names) {
    for (int rank = 0; rank < world; ++rank) {
      std::string line = "[rank " + std::to_string(rank) + "] " + name + " ok";
      if (count(result.out, line) != 1) missing.push_back(line);
    }
  }
  return missing;
}

}  // namespace brisk::testing
