#include "distributed/launch/worker_env.h"

#include <fmt/format.h>

#include <map>

#include "distributed/launch/store_token.h"

namespace brisk::launch {

std::vector<std::string> worker_env(const LaunchOptions& options, int local_rank, int round,
                                    const std::vector<std::string>& base) {
  std::map<std::string, std::string> vars;
  for (const std::string& entry : base) {
    size_t eq = entry.find('=');
    if (eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  vars["RANK"] = std::to_string(options.global_rank(local_rank));
  vars["WORLD_SIZE"] = std::to_string(options.world_size());
  vars["LOCAL_RANK"] = std::to_string(local_rank);
  vars["LOCAL_WORLD_SIZE"] = std::to_string(options.nproc_per_node);
  vars["GROUP_RANK"] = std::to_string(options.node_rank);
  vars["MASTER_ADDR"] = options.master_addr;
  vars["MASTER_PORT"] = std::to_string(options.master_port);
  vars["BRISK_STORE_TOKEN"] = round_store_token(options.store_token, round);
  vars["TORCHELASTIC_RESTART_COUNT"] = std::to_string(round);
  vars["BRISK_RESTART_ROUND"] = std::to_string(round);
  vars["TORCHELASTIC_MAX_RESTARTS"] = std::to_string(options.max_restarts);
  if (options.nproc_per_node > 1 && vars.count("OMP_NUM_THREADS") == 0) vars["OMP_NUM_THREADS"] = "1";

  std::vector<std::string> env;
  env.reserve(vars.size());
  for (const auto& [name, value] : vars) env.push_back(fmt::format("{}={}", name, value));
  return env;
}

}  // namespace brisk::launch
