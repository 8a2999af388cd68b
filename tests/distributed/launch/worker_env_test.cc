#include "distributed/launch/worker_env.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

#include "distributed/launch/store_token.h"

using namespace brisk::launch;

TEST_CASE("worker_env: sets the rendezvous variables and keeps the rest", "[launch]") {
  LaunchOptions options;
  options.nproc_per_node = 4;
  options.nnodes = 3;
  options.node_rank = 2;
  options.master_addr = "10.0.0.1";
  options.master_port = 29500;
  options.store_token = "abc123";
  std::vector<std::string> env = worker_env(options, 1, 0, {"PATH=/bin", "RANK=99", "HOME=/root", "NO_EQUALS"});
  std::set<std::string> got(env.begin(), env.end());
  std::set<std::string> want{"PATH=/bin",
                             "HOME=/root",
                             "RANK=9",
                             "WORLD_SIZE=12",
                             "LOCAL_RANK=1",
                             "LOCAL_WORLD_SIZE=4",
                             "GROUP_RANK=2",
                             "MASTER_ADDR=10.0.0.1",
                             "MASTER_PORT=29500",
                             "BRISK_STORE_TOKEN=abc123",
                             "OMP_NUM_THREADS=1",
                             "TORCHELASTIC_RESTART_COUNT=0",
                             "BRISK_RESTART_ROUND=0",
                             "TORCHELASTIC_MAX_RESTARTS=0"};
  CHECK(got == want);
  CHECK(env.size() == want.size());
}

TEST_CASE("worker_env: a single worker or a set OMP_NUM_THREADS keeps OpenMP's own choice", "[launch]") {
  LaunchOptions options;
  options.store_token = "ff";
  auto has = [](const std::vector<std::string>& env, const std::string& entry) {
    return std::find(env.begin(), env.end(), entry) != env.end();
  };
  std::vector<std::string> single = worker_env(options, 0, 0, {});
  CHECK(std::none_of(single.begin(), single.end(),
                     [](const std::string& e) { return e.rfind("OMP_NUM_THREADS=", 0) == 0; }));
  options.nproc_per_node = 2;
  CHECK(has(worker_env(options, 0, 0, {"OMP_NUM_THREADS=4"}), "OMP_NUM_THREADS=4"));
  CHECK(!has(worker_env(options, 0, 0, {"OMP_NUM_THREADS=4"}), "OMP_NUM_THREADS=1"));
}

TEST_CASE("worker_env: each round has its number and its own store token", "[launch]") {
  LaunchOptions options;
  options.store_token = "abc123";
  options.max_restarts = 5;
  auto has = [](const std::vector<std::string>& env, const std::string& entry) {
    return std::find(env.begin(), env.end(), entry) != env.end();
  };
  std::vector<std::string> round3 = worker_env(options, 0, 3, {"BRISK_STORE_TOKEN=abc123"});
  CHECK(has(round3, "BRISK_STORE_TOKEN=abc12300000003"));
  CHECK(has(round3, "TORCHELASTIC_RESTART_COUNT=3"));
  CHECK(has(round3, "BRISK_RESTART_ROUND=3"));
  CHECK(has(round3, "TORCHELASTIC_MAX_RESTARTS=5"));
  CHECK(round_store_token("abc123", 0) == "abc123");
  CHECK(round_store_token("abc123", 1) != round_store_token("abc123", 2));
}
