#pragma once
// The environment of one worker: the launcher's own, plus the variables torchrun sets and
// Brisk's own (docs/launch.md, "What each worker gets").
#include <string>
#include <vector>

#include "distributed/launch/launch_options.h"

namespace brisk::launch {

// The environment of local rank `local_rank` in round `round` (0 until the first restart).
// `base` holds "NAME=value" entries (e.g. from environ); entries for the variables above
// are replaced.
std::vector<std::string> worker_env(const LaunchOptions& options, int local_rank, int round,
                                    const std::vector<std::string>& base);

}  // namespace brisk::launch
