// The in-memory group's send/recv: matched in order per (sender, receiver, tag), whichever side
// comes first; a size mismatch and a missing sender are named.
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "tests/distributed/ddp/thread_process_group.h"

namespace {

using namespace brisk;
using namespace brisk::dist::testing;
using Catch::Matchers::Contains;

TEST_CASE("ThreadProcessGroup send/recv: in order per tag, receive before or after the send", "[threads]") {
  auto world = std::make_shared<ThreadWorld>(2);
  run_ranks(2, [&](int rank) {
    ThreadProcessGroup group(world, rank);
    if (rank == 0) {
      group.send(tensor({1.0, 2.0}, kFloat64), 1, /*tag=*/0)->wait();
      group.send(tensor({3.0, 4.0}, kFloat64), 1, /*tag=*/0)->wait();
      group.send(tensor({int64_t{7}}), 1, /*tag=*/5)->wait();
      Tensor back = zeros({3});
      group.recv(back, 1)->wait();
      THREAD_CHECK(allclose(back, tensor({5.0f, 6.0f, 7.0f})));
    } else {
      // Tag 5 first: the other tag's messages wait, in their order.
      Tensor tagged = zeros({1}, kInt64);
      group.recv(tagged, 0, 5)->wait();
      THREAD_CHECK(tagged.item<int64_t>() == 7);
      Tensor first = zeros({2}, kFloat64), second = zeros({2}, kFloat64);
      auto w1 = group.recv(first, 0);
      auto w2 = group.recv(second, 0);
      w1->wait();
      w2->wait();
      THREAD_CHECK(allclose(first, tensor({1.0, 2.0}, kFloat64)));
      THREAD_CHECK(allclose(second, tensor({3.0, 4.0}, kFloat64)));
      group.send(tensor({5.0f, 6.0f, 7.0f}), 0)->wait();
    }
  });
}

TEST_CASE("ThreadProcessGroup recv: a size mismatch and a silent sender are named", "[threads]") {
  auto world = std::make_shared<ThreadWorld>(2, std::chrono::milliseconds(200));
  run_ranks(2, [&](int rank) {
    ThreadProcessGroup group(world, rank);
    if (rank == 0) {
      group.send(zeros({3}), 1)->wait();
    } else {
      Tensor two = zeros({2});
      THREAD_CHECK_THROWS_WITH(group.recv(two, 0)->wait(),
                               Contains("recv from rank 0 (tag 0) on rank 1: expected 2 elements of float32 but rank "
                                        "0 sent 3 of float32"));
      THREAD_CHECK_THROWS_WITH(
          group.recv(two, 0, 3)->wait(),
          Contains("recv from rank 0 (tag 3) on rank 1 timed out after 200 ms: rank 0 sent nothing"));
    }
  });
}

}  // namespace
