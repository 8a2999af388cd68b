// Two "nodes" on one machine: two network namespaces joined by a veth pair, each running a
// launcher with two workers (--nnodes 2 --node-rank i), rank 0's store and Gloo traffic
// crossing the veth link. Needs root with CAP_NET_ADMIN (ip netns add); without it the test
// says so and checks nothing.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <future>
#include <string>

#include "tests/tools/launch/process_runner.h"

namespace {

using namespace brisk::testing;

const char* const kNodeAddress[2] = {"10.213.0.1", "10.213.0.2"};

std::string ip_binary() {
  for (const char* path : {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"})
    if (access(path, X_OK) == 0) return path;
  return "";
}

// Two namespaces, brisk_<pid>_0 and brisk_<pid>_1, with 10.213.0.1 and .2 on the two ends
// of a veth pair; removed (the pair with them) at destruction.
class TwoNodes {
 public:
  TwoNodes() : ip_(ip_binary()), tag_(std::to_string(getpid())) {
    for (int i = 0; i < 2; ++i) ns_[i] = "brisk_" + tag_ + "_" + std::to_string(i);
    if (ip_.empty()) {
      why_not_ = "no ip command";
      return;
    }
    std::string a = "bv" + tag_ + "a", b = "bv" + tag_ + "b";
    if (!sh("netns add " + ns_[0]) || !sh("netns add " + ns_[1])) {
      why_not_ = "cannot create network namespaces (needs root with CAP_NET_ADMIN): " + last_;
      return;
    }
    const std::string steps[] = {
        "link add " + a + " type veth peer name " + b,
        "link set " + a + " netns " + ns_[0],
        "link set " + b + " netns " + ns_[1],
        "-n " + ns_[0] + " addr add " + kNodeAddress[0] + "/24 dev " + a,
        "-n " + ns_[1] + " addr add " + kNodeAddress[1] + "/24 dev " + b,
        "-n " + ns_[0] + " link set " + a + " up",
        "-n " + ns_[1] + " link set " + b + " up",
        "-n " + ns_[0] + " link set lo up",
        "-n " + ns_[1] + " link set lo up",
    };
    for (const std::string& step : steps) {
      if (!sh(step)) {
        why_not_ = "cannot set up the veth pair (needs CAP_NET_ADMIN): " + last_;
        return;
      }
    }
  }
  ~TwoNodes() {
    for (const std::string& ns : ns_) sh("netns del " + ns);
  }

  bool ready() const { return why_not_.empty(); }
  const std::string& why_not() const { return why_not_; }
  const std::string& ip() const { return ip_; }
  const std::string& ns(int node) const { return ns_[node]; }

 private:
  bool sh(const std::string& args) {
    std::string command = ip_ + " " + args + " 2>&1";
    last_ = command;
    return std::system(command.c_str()) == 0;
  }

  std::string ip_;
  std::string tag_;
  std::string ns_[2];
  std::string why_not_;
  std::string last_;
};

}  // namespace

TEST_CASE("multi-node: two namespaces joined by veth, two workers each, all_reduce across them",
          "[distributed][multinode]") {
  TwoNodes nodes;
  if (!nodes.ready()) {
    WARN("multi-node test skipped: " << nodes.why_not());
    return;
  }
  RunOptions options;
  options.timeout = std::chrono::seconds(60);
  options.env = {{"BRISK_STORE_TOKEN", "5eed0f00d5eed0f00d5eed0f00d5eed0"}, {"BRISK_TEST_TIMEOUT_MS", "10000"}};
  auto node = [&](int rank) {
    return run_process({nodes.ip(), "netns", "exec", nodes.ns(rank), launcher_path(), "--nnodes", "2", "--node-rank",
                        std::to_string(rank), "--nproc-per-node", "2", "--master-addr", kNodeAddress[0],
                        "--master-port", "29611", "tests/distributed/launch_worker", "allreduce"},
                       options);
  };
  auto second = std::async(std::launch::async, node, 1);
  RunResult first = node(0);
  RunResult other = second.get();
  for (const RunResult* r : {&first, &other}) {
    INFO(output_of(*r));
    CHECK_FALSE(r->timed_out);
    CHECK(r->status == 0);
  }
  // 1 + 2 + 3 + 4 on every rank; ranks 0, 1 on the first node, 2, 3 on the second.
  CHECK(count(first.out, "[rank 0] rank 0 of 4: sum 10") == 1);
  CHECK(count(first.out, "[rank 1] rank 1 of 4: sum 10") == 1);
  CHECK(count(other.out, "[rank 2] rank 2 of 4: sum 10") == 1);
  CHECK(count(other.out, "[rank 3] rank 3 of 4: sum 10") == 1);
}
