#pragma once
// The default group's rendezvous: init_process_group waits here until every rank of the world
// has joined the store, before the backend connects the ranks.
//
//   rendezvous(*store, rank, world_size, "WORLD_SIZE", options);
//
// Each rank announces itself and waits. Rank 0 (which hosts a TCPStore) prints to stderr, every
// rendezvous_progress_interval(options) while ranks are missing,
//
//   rendezvous: waiting for ranks [2] of 3: 2 arrived, 30 s (world size from WORLD_SIZE=3, timeout 300 s)
//
// and nothing when everyone arrives before the first interval. After rendezvous_timeout(options)
// every waiting rank fails with a brisk::Error naming itself, the missing ranks and
// `world_size_source` (where the world size was read: an environment variable's name, or
// "argument"). Rank 0 also publishes its verdict, so the other ranks fail with it at once.
#include <chrono>
#include <string>

#include "distributed/process_group.h"
#include "distributed/store/store.h"

namespace brisk::dist {

constexpr std::chrono::milliseconds kDefaultRendezvousTimeout{std::chrono::minutes(5)};
constexpr std::chrono::milliseconds kDefaultRendezvousProgressInterval{std::chrono::seconds(30)};

void rendezvous(Store& store, int rank, int world_size, const std::string& world_size_source,
                const ProcessGroupOptions& options);

// options.rendezvous_timeout, else BRISK_RENDEZVOUS_TIMEOUT (seconds, > 0), else the default.
std::chrono::milliseconds rendezvous_timeout(const ProcessGroupOptions& options);
// options.rendezvous_progress_interval, else BRISK_RENDEZVOUS_PROGRESS_INTERVAL (seconds, > 0),
// else the default.
std::chrono::milliseconds rendezvous_progress_interval(const ProcessGroupOptions& options);

}  // namespace brisk::dist
