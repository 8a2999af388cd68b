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

std::string test_worker_starter() {
  const char* starter = std::getenv("BRISK_TEST_WORKER_STARTER");
  return starter != nullptr ? starter : "launcher";
}

namespace {

// mpirun --tag-output's "[<job>,<rank>]<stdout>:" prefixes as the launcher's "[rank <rank>] ".
std::string as_launcher_lines(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    size_t comma = line.find(',');
    size_t close = line.find("]<");
    size_t colon = line.find(">:");
    if (!line.empty() && line[0] == '[' && comma != std::string::npos && close != std::string::npos &&
        colon != std::string::npos && comma < close && close < colon) {
      line = "[rank " + line.substr(comma + 1, close - comma - 1) + "] " + line.substr(colon + 2);
    }
    out += line + "\n";
    start = end + 1;
  }
  return out;
}

RunResult mpirun_workers(const std::vector<std::string>& worker_argv, int world, std::chrono::seconds timeout) {
  // As root (CI's containers) Open MPI wants --allow-run-as-root; --oversubscribe lets more ranks
  // than cores run.
  std::vector<std::string> argv{"/usr/bin/mpirun",    "--allow-run-as-root", "--oversubscribe", "--tag-output", "-np",
                                std::to_string(world)};
  argv.insert(argv.end(), worker_argv.begin(), worker_argv.end());
  RunOptions options;
  options.timeout = timeout;
  options.env = mpirun_env();
  RunResult r = run_process(argv, options);
  INFO(output_of(r));
  REQUIRE_FALSE(r.timed_out);
  r.out = as_launcher_lines(r.out);
  r.err = as_launcher_lines(r.err);
  return r;
}

}  // namespace

RunResult launch_workers(const std::string& worker, int world, const std::vector<std::string>& args,
                         std::chrono::seconds timeout) {
  std::vector<std::string> worker_argv{worker, "--device", test_worker_device()};
  if (test_worker_starter() == "mpirun") {
    worker_argv.insert(worker_argv.end(), {"--backend", "mpi"});
    worker_argv.insert(worker_argv.end(), args.begin(), args.end());
    return mpirun_workers(worker_argv, world, timeout);
  }
  std::vector<std::string> argv{"--nproc-per-node", std::to_string(world)};
  argv.insert(argv.end(), worker_argv.begin(), worker_argv.end());
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
