// One rank of a DistributedDataParallel scenario across processes, started by the launcher:
//
//   launch --nproc-per-node 3 tests/distributed/ddp/ddp_worker all
//
// `all` runs every scenario of scenarios.h in one process group and prints
// "<scenario> ok max_diff=<x>" for each that matches the single-process reference with
// every rank's parameters bitwise equal, "<scenario> FAILED ..." otherwise; an error
// scenario (shape_mismatch, unused_error, uneven) prints the error it ends with. The exit
// status is 0 only when everything passed (an error scenario never passes).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "distributed/prefix_store.h"
#include "distributed/process_group_gloo.h"
#include "distributed/tcp_store.h"
#include "tests/distributed/ddp/scenarios.h"

namespace {

using namespace brisk::dist;

std::string env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) {
    std::fprintf(stderr, "ddp_worker: %s is not set; run it through the launcher\n", name);
    std::exit(2);
  }
  return value;
}

std::shared_ptr<ProcessGroup> connect(std::chrono::milliseconds timeout) {
  const int rank = std::stoi(env("RANK"));
  TCPStoreOptions options;
  options.port = static_cast<uint16_t>(std::stoi(env("MASTER_PORT")));
  options.is_master = rank == 0;
  options.timeout = timeout;
  options.token = store_token_from_env();
  auto store = std::make_shared<TCPStore>(env("MASTER_ADDR"), options);
  ProcessGroupOptions group_options;
  group_options.timeout = timeout;
  return std::make_shared<ProcessGroupGloo>(std::make_shared<PrefixStore>("ddp", store), rank,
                                            std::stoi(env("WORLD_SIZE")), group_options);
}

int run(const std::string& what, const std::shared_ptr<ProcessGroup>& group) {
  if (what == "shape_mismatch" || what == "unused_error" || what == "uneven") {
    brisk::dist::testing::run_error_scenario(what, group);
    std::printf("%s ended without an error\n", what.c_str());
    return 1;
  }
  std::vector<std::string> names{what};
  if (what == "all") names = brisk::dist::testing::scenario_names();
  int failures = 0;
  for (const std::string& name : names) {
    auto outcome = brisk::dist::testing::run_scenario(name, group);
    const double tolerance = name == "bf16" ? 1e-2 : 1e-5;
    bool ok = outcome.identical && outcome.max_diff < tolerance;
    std::printf("%s %s max_diff=%.3g identical=%d\n", name.c_str(), ok ? "ok" : "FAILED", outcome.max_diff,
                outcome.identical ? 1 : 0);
    std::fflush(stdout);
    failures += ok ? 0 : 1;
  }
  group->barrier()->wait();  // rank 0 hosts the store: nobody leaves while others use it
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ddp_worker all|<scenario>\n");
    return 2;
  }
  try {
    return run(argv[1], connect(std::chrono::seconds(20)));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
