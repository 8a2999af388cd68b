#include "distributed/rendezvous.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "tensor/error.h"

namespace brisk::dist {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr char kArrived[] = "rendezvous/arrived";
// Rank 0's reason for giving up, and how many other ranks have read it.
constexpr char kVerdict[] = "rendezvous/verdict";
constexpr char kVerdictSeen[] = "rendezvous/verdict_seen";
// How long rank 0, which hosts the store, stays to let the others read its verdict.
constexpr milliseconds kVerdictGrace{std::chrono::seconds(2)};
constexpr milliseconds kMaxPoll{100};
// A progress line or an error names at most this many missing ranks, then how many more.
constexpr size_t kRanksNamed = 16;

std::string rank_key(int rank) { return fmt::format("rendezvous/rank/{}", rank); }

milliseconds positive_seconds(const std::optional<milliseconds>& option, const char* field, const char* env,
                              milliseconds fallback) {
  if (option) {
    BRISK_CHECK(option->count() > 0, "ProcessGroupOptions::{} must be positive, got {} ms", field, option->count());
    return *option;
  }
  const char* text = std::getenv(env);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  double value = std::strtod(text, &end);
  BRISK_CHECK(end != text && *end == '\0' && std::isfinite(value) && value > 0,
              "{}='{}' is not a number of seconds > 0 (ProcessGroupOptions::{})", env, text, field);
  return std::max(milliseconds(1), milliseconds(std::llround(value * 1000)));
}

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string rank_list(const std::vector<int>& ranks) {
  std::vector<int> named(ranks.begin(), ranks.begin() + std::min(ranks.size(), kRanksNamed));
  std::string list = fmt::format("[{}", fmt::join(named, ", "));
  if (ranks.size() > named.size()) list += fmt::format(", ... ({} more)", ranks.size() - named.size());
  return list + "]";
}

// One store request per rank: only for progress lines and errors, never while polling.
std::vector<int> missing_ranks(Store& store, int world_size) {
  std::vector<int> missing;
  for (int r = 0; r < world_size; ++r)
    if (!store.check({rank_key(r)})) missing.push_back(r);
  return missing;
}

}  // namespace

milliseconds rendezvous_timeout(const ProcessGroupOptions& options) {
  return positive_seconds(options.rendezvous_timeout, "rendezvous_timeout", "BRISK_RENDEZVOUS_TIMEOUT",
                          kDefaultRendezvousTimeout);
}

milliseconds rendezvous_progress_interval(const ProcessGroupOptions& options) {
  return positive_seconds(options.rendezvous_progress_interval, "rendezvous_progress_interval",
                          "BRISK_RENDEZVOUS_PROGRESS_INTERVAL", kDefaultRendezvousProgressInterval);
}

void rendezvous(Store& store, int rank, int world_size, const std::string& world_size_source,
                const ProcessGroupOptions& options) {
  const milliseconds timeout = rendezvous_timeout(options);
  const milliseconds interval = rendezvous_progress_interval(options);
  const std::string where = fmt::format("rendezvous (rank {} of {})", rank, world_size);
  store.set(rank_key(rank), std::string("1"));
  int64_t arrived = store.add(kArrived, 1);
  const Clock::time_point start = Clock::now();
  Clock::time_point next_progress = start + interval;
  milliseconds poll{1};
  bool reported = false;
  while (arrived < world_size) {
    if (rank != 0 && store.check({kVerdict})) {
      std::string verdict = store.get_string(kVerdict);
      store.add(kVerdictSeen, 1);
      BRISK_FAIL("{}: {}", where, verdict);
    }
    const Clock::time_point now = Clock::now();
    if (now >= start + timeout) {
      std::vector<int> missing;
      try {
        missing = missing_ranks(store, world_size);
      } catch (const Error& e) {
        BRISK_FAIL("{}: timed out after {:g} s with {} of {} ranks arrived, and the store is gone: {}", where,
                   seconds(timeout), arrived, world_size, e.what());
      }
      const int present = world_size - static_cast<int>(missing.size());
      std::string verdict = fmt::format(
          "timed out after {:g} s waiting for ranks {} of {}: {} arrived. The world size {} came from {}: start "
          "{} processes, or correct it (BRISK_RENDEZVOUS_TIMEOUT sets this timeout)",
          seconds(timeout), rank_list(missing), world_size, present, world_size, world_size_source, world_size);
      if (rank == 0) {
        store.set(kVerdict, verdict);
        const Clock::time_point grace = Clock::now() + kVerdictGrace;
        while (store.add(kVerdictSeen, 0) < present - 1 && Clock::now() < grace)
          std::this_thread::sleep_for(milliseconds(10));
      }
      BRISK_FAIL("{}: {}", where, verdict);
    }
    if (rank == 0 && now >= next_progress) {
      std::vector<int> missing = missing_ranks(store, world_size);
      fmt::print(stderr,
                 "rendezvous: waiting for ranks {} of {}: {} arrived, {:.0f} s (world size from {}, timeout {:g} s)\n",
                 rank_list(missing), world_size, world_size - static_cast<int>(missing.size()), seconds(now - start),
                 world_size_source, seconds(timeout));
      std::fflush(stderr);
      reported = true;
      next_progress += interval;
    }
    std::this_thread::sleep_for(poll);
    poll = std::min(poll * 2, kMaxPoll);
    arrived = store.add(kArrived, 0);
  }
  if (reported) {
    fmt::print(stderr, "rendezvous: all {} ranks arrived after {:.0f} s\n", world_size, seconds(Clock::now() - start));
    std::fflush(stderr);
  }
}

}  // namespace brisk::dist
