// How ProcessGroupNCCL makes and aborts its communicator (distributed/nccl/nccl_communicator.h),
// with scripted NCCL calls on rank threads sharing one TCPStore. The script's init_rank waits,
// as ncclCommInitRank does, until every rank has joined the same id. Groups made in one order
// complete whatever order the ranks then use them in, where communicators made in opposite
// orders (what making them at the first use did) wait for each other until the timeout, which
// names the rank missing. The abort runs once however many threads ask for it at the same time.
#include "distributed/nccl/nccl_communicator.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "distributed/store/prefix_store.h"
#include "tests/distributed/gloo/gloo_thread_ranks.h"

namespace {

using namespace brisk::dist;
using namespace std::chrono_literals;
using brisk::testing::run_store_ranks;
using Catch::Matchers::Contains;

// The NCCL that every rank thread of a test reaches: ids drawn, and who joined each.
class ScriptedNccl {
 public:
  Bytes new_id() {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::string id = "id" + std::to_string(drawn_++);
    return Bytes(id.begin(), id.end());
  }

  // As ncclCommInitRank: returns once `size` ranks have joined `id`; a rank left alone for
  // `patience` fails instead of hanging the test.
  void join(const Bytes& id, int size, std::chrono::milliseconds patience) {
    std::unique_lock<std::mutex> lock(mutex_);
    ++joined_[id];
    all_joined_.notify_all();
    if (!all_joined_.wait_for(lock, patience, [&] { return joined_[id] == size; }))
      throw std::runtime_error("init_rank: not every rank joined " + std::string(id.begin(), id.end()));
  }

  int drawn() {
    std::lock_guard<std::mutex> lock(mutex_);
    return drawn_;
  }
  int joined(const Bytes& id) {
    std::lock_guard<std::mutex> lock(mutex_);
    return joined_[id];
  }

 private:
  std::mutex mutex_;
  std::condition_variable all_joined_;
  int drawn_ = 0;
  std::map<Bytes, int> joined_;
};

// One rank's calls for one group.
class ScriptedCalls : public CommunicatorCalls {
 public:
  explicit ScriptedCalls(ScriptedNccl& nccl, std::chrono::milliseconds patience = 10s)
      : nccl_(nccl), patience_(patience) {}

  Bytes unique_id() override { return nccl_.new_id(); }
  void init_rank(const Bytes& id, int size, int /*rank*/) override {
    nccl_.join(id, size, patience_);
    id_ = id;
  }
  // Slow on purpose, so that concurrent callers overlap it.
  void abort() noexcept override {
    std::this_thread::sleep_for(20ms);
    ++aborts_;
  }

  const Bytes& id() const { return id_; }  // empty until joined
  int aborts() const { return aborts_; }

 private:
  ScriptedNccl& nccl_;
  std::chrono::milliseconds patience_;
  Bytes id_;
  std::atomic<int> aborts_{0};
};

TEST_CASE("NCCL communicator: two groups made in one order complete, whatever order the ranks use them in", "[nccl]") {
  ScriptedNccl nccl;
  std::mutex mutex;
  std::vector<Bytes> ids;
  std::vector<int> joined_at_first_use;  // per use, in the order of the uses
  run_store_ranks(2, [&](int rank, std::shared_ptr<Store> store) {
    PrefixStore first_store("group1", store), second_store("group2", store);
    ScriptedCalls first_calls(nccl), second_calls(nccl);
    // As init_process_group and new_group on every rank: the groups are made in one order.
    Communicator first(first_store, rank, 2, 10s, first_calls);
    Communicator second(second_store, rank, 2, 10s, second_calls);
    // Rank 0 uses the first group first, rank 1 the second: each finds its communicator
    // already joined by both ranks, so nothing waits.
    std::lock_guard<std::mutex> lock(mutex);
    for (ScriptedCalls* calls :
         rank == 0 ? std::vector{&first_calls, &second_calls} : std::vector{&second_calls, &first_calls})
      joined_at_first_use.push_back(nccl.joined(calls->id()));
    ids.push_back(first_calls.id());
    ids.push_back(second_calls.id());
  });
  CHECK(joined_at_first_use == std::vector<int>{2, 2, 2, 2});
  // Rank 0 drew one id per group, and both ranks joined each group with the same one.
  CHECK(nccl.drawn() == 2);
  std::sort(ids.begin(), ids.end());
  CHECK(ids == std::vector<Bytes>{{'i', 'd', '0'}, {'i', 'd', '0'}, {'i', 'd', '1'}, {'i', 'd', '1'}});
}

TEST_CASE("NCCL communicator: made in opposite orders they wait for each other, and the timeout names the rank "
          "missing",
          "[nccl]") {
  ScriptedNccl nccl;
  std::vector<std::string> errors(2);
  std::atomic<int> joined{0};
  run_store_ranks(2, [&](int rank, std::shared_ptr<Store> store) {
    // Rank 0 makes the first group's communicator while rank 1 makes the second's: what making
    // them at the first use did when the ranks used their groups first in opposite orders.
    PrefixStore own_store(rank == 0 ? "group1" : "group2", store);
    ScriptedCalls calls(nccl);
    try {
      Communicator communicator(own_store, rank, 2, 300ms, calls);
    } catch (const brisk::Error& e) {
      errors[static_cast<size_t>(rank)] = e.what();
    }
    if (!calls.id().empty()) ++joined;
  });
  CHECK(joined == 0);  // neither reached init_rank
  CHECK_THAT(
      errors[0],
      Contains("ProcessGroupNCCL: rank 0: creating the NCCL communicator: ranks [1] did not arrive within 300 ms"));
  CHECK_THAT(
      errors[1],
      Contains("ProcessGroupNCCL: rank 1: creating the NCCL communicator: ranks [0] did not arrive within 300 ms"));
  CHECK(nccl.drawn() == 0);
}

TEST_CASE("NCCL communicator: aborts once however many threads ask at the same time", "[nccl]") {
  ScriptedNccl nccl;
  ScriptedCalls calls(nccl);
  int returned_early = -1, aborts_after_another_call = -1;
  run_store_ranks(1, [&](int rank, std::shared_ptr<Store> store) {
    Communicator communicator(*store, rank, 1, 10s, calls);
    // The watchdog, the desync monitor and the heartbeat giving up at once, and more.
    constexpr int kCallers = 8;
    std::atomic<int> ready{0};
    std::atomic<int> returned_before_abort_ended{0};
    std::vector<std::thread> callers;
    for (int i = 0; i < kCallers; ++i) {
      callers.emplace_back([&] {
        ++ready;
        while (ready.load() < kCallers) std::this_thread::yield();
        communicator.abort();
        if (calls.aborts() == 0) ++returned_before_abort_ended;
      });
    }
    for (std::thread& t : callers) t.join();
    returned_early = returned_before_abort_ended;
    communicator.abort();
    aborts_after_another_call = calls.aborts();
  });
  CHECK(calls.aborts() == 1);
  // A caller that returned before the abort ended would end the process in the middle of it.
  CHECK(returned_early == 0);
  CHECK(aborts_after_another_call == 1);
}

}  // namespace
