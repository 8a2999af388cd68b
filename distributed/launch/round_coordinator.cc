#include "distributed/launch/round_coordinator.h"

#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "distributed/store/tcp_store.h"
#include "tensor/error.h"

namespace brisk::launch {
namespace {

std::string round_key(int round, const std::string& rest) { return fmt::format("round/{}/{}", round, rest); }

std::string encode(const RoundFailure& failure) {
  return fmt::format("{} {} {}", failure.status, failure.final ? 1 : 0, failure.cause);
}

RoundFailure decode(const std::string& text) {
  RoundFailure failure;
  int final = 0;
  int used = 0;
  BRISK_CHECK(std::sscanf(text.c_str(), "%d %d %n", &failure.status, &final, &used) == 2,
              "launch: malformed round failure '{}' in the control store", text);
  failure.final = final != 0;
  failure.cause = text.substr(static_cast<size_t>(used));
  return failure;
}

}  // namespace

RoundCoordinator::RoundCoordinator(const LaunchOptions& options)
    : options_(options), where_(fmt::format("the control store at {}:{}", options.master_addr, options.control_port)) {
  dist::TCPStoreOptions store_options;
  store_options.port = static_cast<uint16_t>(options.control_port);
  store_options.is_master = options.node_rank == 0;
  store_options.timeout = kBarrierTimeout;
  store_options.token = options.store_token;
  try {
    store_ = std::make_unique<dist::TCPStore>(options.master_addr, store_options);
  } catch (const Error& error) {
    BRISK_FAIL("launch: node {} cannot {} {} (node 0's launcher hosts it): {}", options.node_rank,
               options.node_rank == 0 ? "host" : "reach", where_, error.what());
  }
  const std::string config =
      fmt::format("--max-restarts {} --nproc-per-node {}", options.max_restarts, options.nproc_per_node);
  dist::Bytes first = store_->compare_set("config", {}, dist::Bytes(config.begin(), config.end()));
  const std::string agreed(first.begin(), first.end());
  BRISK_CHECK(agreed == config, "launch: node {} has {}, but another node has {}: every node needs the same",
              options.node_rank, config, agreed);
}

RoundCoordinator::~RoundCoordinator() = default;

void RoundCoordinator::barrier(const std::string& prefix, const char* what, int round, bool wait) {
  store_->set(fmt::format("{}/{}", prefix, options_.node_rank), std::string("1"));
  if (!wait) return;
  std::vector<std::string> keys;
  for (int node = 0; node < options_.nnodes; ++node) keys.push_back(fmt::format("{}/{}", prefix, node));
  try {
    store_->wait(keys, kBarrierTimeout);
  } catch (const Error&) {
    std::string missing;
    for (int node = 0; node < options_.nnodes; ++node) {
      if (!store_->check({keys[node]})) missing += fmt::format("{}{}", missing.empty() ? "" : ", ", node);
    }
    BRISK_FAIL("launch: the launchers of nodes [{}] did not {} round {} within {} s (are they running?)", missing, what,
               round, kBarrierTimeout.count());
  }
}

void RoundCoordinator::join(int round) { barrier(round_key(round, "joined"), "join", round, true); }

std::optional<RoundFailure> RoundCoordinator::failure(int round) {
  const std::string key = round_key(round, "failure");
  if (!store_->check({key})) return std::nullopt;
  return decode(store_->get_string(key));
}

void RoundCoordinator::report(int round, const RoundFailure& failure) {
  RoundFailure named = failure;
  named.cause = fmt::format("node {}: {}", options_.node_rank, failure.cause);
  const std::string text = encode(named);
  store_->compare_set(round_key(round, "failure"), {}, dist::Bytes(text.begin(), text.end()));
  if (failure.final) store_->set(round_key(round, "final"), named.cause);
}

std::optional<RoundFailure> RoundCoordinator::end(int round) {
  barrier(round_key(round, "ended"), "end", round, true);
  std::optional<RoundFailure> outcome = failure(round);
  if (outcome && store_->check({round_key(round, "final")})) outcome->final = true;
  // Node 0 hosts the store: it waits until every node has read the outcome before it may exit.
  barrier(round_key(round, "read"), "read the outcome of", round, options_.node_rank == 0);
  return outcome;
}

}  // namespace brisk::launch
