#pragma once
// The environment of one worker: the launcher's own, plus the variables torchrun sets.
//
//   RANK               node_rank * nproc_per_node + local_rank
//   WORLD_SIZE         nnodes * nproc_per_node
//   LOCAL_RANK         0 .. nproc_per_node - 1
//   LOCAL_WORLD_SIZE   nproc_per_node
//   GROUP_RANK         node_rank
//   MASTER_ADDR, MASTER_PORT   where rank 0 hosts the TCP store
//   BRISK_STORE_TOKEN  the job's secret (hex) for this round: round_store_token(), so that a
//                      worker left over from an earlier round cannot join this round's store
//   TORCHELASTIC_RESTART_COUNT, BRISK_RESTART_ROUND   the round: 0, then 1 after the first
//                      restart, ... (torchrun's name and Brisk's own)
//   TORCHELASTIC_MAX_RESTARTS   --max-restarts
//   OMP_NUM_THREADS    1 when several workers share the node and it was not set, as torchrun
//                      does, so that N workers do not each start one thread per core
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
