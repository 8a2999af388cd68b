// ProcessGroupNCCL's teardown decision (distributed/nccl/nccl_teardown.h) with a scripted queue in
// place of the CUDA stream and the NCCL communicator: a queue that drains is destroyed, one
// that fails is aborted at once, and one that never finishes (a peer died mid-collective) is
// aborted after the timeout instead of being waited for forever.
#include "distributed/nccl/nccl_teardown.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace {

using brisk::dist::drain_before_destroy;
using brisk::dist::QueuedWork;
using namespace std::chrono_literals;

// Answers the scripted states in order, then repeats the last one.
struct ScriptedQueue {
  std::vector<QueuedWork> states;
  size_t polls = 0;
  QueuedWork operator()() {
    QueuedWork state = states[std::min(polls, states.size() - 1)];
    ++polls;
    return state;
  }
};

TEST_CASE("NCCL teardown: a queue that drains is destroyed", "[nccl]") {
  ScriptedQueue queue{{QueuedWork::kRunning, QueuedWork::kRunning, QueuedWork::kFinished}};
  CHECK(drain_before_destroy(std::ref(queue), 10s, 1ms));
  CHECK(queue.polls == 3);
}

TEST_CASE("NCCL teardown: an asynchronous error aborts without waiting for the timeout", "[nccl]") {
  ScriptedQueue queue{{QueuedWork::kRunning, QueuedWork::kFailed}};
  CHECK_FALSE(drain_before_destroy(std::ref(queue), 10min, 1ms));
  CHECK(queue.polls == 2);
}

TEST_CASE("NCCL teardown: work that never finishes is aborted after the timeout, not waited for", "[nccl]") {
  ScriptedQueue queue{{QueuedWork::kRunning}};
  const auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(drain_before_destroy(std::ref(queue), 50ms, 1ms));
  const auto waited = std::chrono::steady_clock::now() - start;
  CHECK(waited >= 50ms);
  CHECK(queue.polls >= 2);
}

TEST_CASE("NCCL teardown: finished work is destroyed even with a zero timeout", "[nccl]") {
  ScriptedQueue queue{{QueuedWork::kFinished}};
  CHECK(drain_before_destroy(std::ref(queue), 0ms, 1ms));
  CHECK(queue.polls == 1);
}

}  // namespace
