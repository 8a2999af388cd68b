#include "tests/distributed/testing/worker_group.h"

#include <chrono>
#include <cstdlib>

#include "distributed/distributed.h"
#include "tensor/error.h"

namespace brisk::dist::testing {

WorkerArgs parse_worker_args(int argc, char** argv) {
  WorkerArgs args{kCPU, {}};
  int i = 1;
  if (i + 1 < argc && std::string(argv[i]) == "--device") {
    const std::string name = argv[i + 1];
    const char* local_rank = std::getenv("LOCAL_RANK");
    BRISK_CHECK(name == "cpu" || name == "sim", "test worker: --device {}: expected cpu or sim", name);
    BRISK_CHECK(name == "cpu" || local_rank != nullptr, "test worker: --device sim needs LOCAL_RANK (start it with the launcher)");
    if (name == "sim") args.device = sim_device(std::atoi(local_rank));
    i += 2;
  }
  for (; i < argc; ++i) args.rest.push_back(argv[i]);
  return args;
}

void init_worker_group(Device device) {
  ProcessGroupOptions options;
  options.timeout = std::chrono::seconds(20);
  options.device = device;
  init_process_group("gloo", "env://", -1, -1, options);
}

}  // namespace brisk::dist::testing
