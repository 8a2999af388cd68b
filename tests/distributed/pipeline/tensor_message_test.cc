// Pipeline messages between thread ranks: any number of tensors of any dtypes and shapes,
// undefined and empty ones included, a header longer than its first send, and shapes that
// repeat or change from one message to the next (each end remembering the last ones), received
// whole or through receives posted before the message was sent.
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "distributed/pipeline/tensor_message.h"
#include "tests/distributed/ddp/thread_process_group.h"

namespace {

using namespace brisk;
using namespace brisk::dist::pipeline;
using brisk::dist::testing::run_ranks;
using brisk::dist::testing::ThreadProcessGroup;
using brisk::dist::testing::ThreadWorld;

// Twelve 5-dim tensors: a header of 2 + 12 * 7 values, more than kHeaderCapacity.
std::vector<Tensor> many_dims() {
  std::vector<Tensor> tensors;
  for (int64_t i = 0; i < 12; ++i) tensors.push_back(full({1, 2, 1, 1, i + 1}, static_cast<double>(i), kFloat64));
  return tensors;
}

TEST_CASE("Tensor messages carry their shapes, dtypes and undefined tensors", "[pipeline]") {
  auto world = std::make_shared<ThreadWorld>(2);
  const std::vector<Tensor> mixed{arange(6, kInt64).reshape({2, 3}), Tensor(), ones({0, 4}), full({3}, 2.5, kFloat64),
                                  tensor({true, false})};
  const std::vector<Tensor> wide{full({7, 2}, 3.0, kFloat64)};
  run_ranks(2, [&](int rank) {
    ThreadProcessGroup group(world, rank);
    MessageShapes shapes;
    if (rank == 0) {
      std::vector<PendingSend> sent;
      // New shapes, the same again, a long header, the first shapes, the same again.
      for (const auto& message : {mixed, mixed, many_dims(), wide, wide}) {
        sent.push_back(send_tensors(group, message, 1, 0, shapes));
      }
      for (auto& s : sent) s.wait();
      return;
    }
    for (int i = 0; i < 2; ++i) {
      std::vector<Tensor> got = recv_tensors(group, 0, 0, shapes);
      THREAD_REQUIRE(got.size() == mixed.size());
      THREAD_CHECK(got[0].dtype() == kInt64);
      THREAD_CHECK(got[0].to_vector<int64_t>() == std::vector<int64_t>{0, 1, 2, 3, 4, 5});
      THREAD_CHECK(got[0].sizes() == Shape{2, 3});
      THREAD_CHECK(!got[1].defined());
      THREAD_CHECK(got[2].sizes() == Shape{0, 4});
      THREAD_CHECK(got[3].to_vector<double>() == std::vector<double>{2.5, 2.5, 2.5});
      THREAD_CHECK(got[4].dtype() == kBool);
    }
    std::vector<Tensor> many = recv_tensors(group, 0, 0, shapes);
    THREAD_REQUIRE(many.size() == 12);
    for (int64_t i = 0; i < 12; ++i) {
      THREAD_CHECK(many[i].sizes() == Shape{1, 2, 1, 1, i + 1});
      THREAD_CHECK(many[i].sum().item<double>() == 2.0 * (i + 1) * i);
    }
    for (int i = 0; i < 2; ++i) {
      std::vector<Tensor> got = recv_tensors(group, 0, 0, shapes);
      THREAD_REQUIRE(got.size() == 1);
      THREAD_CHECK(got[0].sizes() == Shape{7, 2});
      THREAD_CHECK(got[0].sum().item<double>() == 42.0);
    }
  });
}

TEST_CASE("Both ends remember the stream's last header; a repeat arrives in the receives posted for it", "[pipeline]") {
  auto world = std::make_shared<ThreadWorld>(2);
  run_ranks(2, [&](int rank) {
    ThreadProcessGroup group(world, rank);
    MessageShapes shapes;
    if (rank == 0) {
      // Both messages sent before the receiver starts: it posts everything it needs at once.
      std::vector<PendingSend> sent;
      sent.push_back(send_tensors(group, {ones({2, 2})}, 1, 0, shapes));
      sent.push_back(send_tensors(group, {full({2, 2}, 2.0)}, 1, 0, shapes));
      for (auto& s : sent) s.wait();
      group.barrier()->wait();
      return;
    }
    group.barrier()->wait();
    THREAD_CHECK(recv_tensors(group, 0, 0, shapes)[0].sum().item<float>() == 4.0f);
    THREAD_CHECK(shapes.header == std::vector<int64_t>{6, 1, static_cast<int64_t>(kFloat32), 2, 2, 2});
    THREAD_CHECK(recv_tensors(group, 0, 0, shapes)[0].sum().item<float>() == 8.0f);
  });
}

TEST_CASE("A receive posted before its message was sent gets it, whether its shapes repeat or change", "[pipeline]") {
  auto world = std::make_shared<ThreadWorld>(2);
  run_ranks(2, [&](int rank) {
    ThreadProcessGroup group(world, rank);
    MessageShapes shapes;
    if (rank == 0) {
      // Each message sent once the receiver has posted its receive (the barriers).
      const std::vector<std::vector<Tensor>> messages{
          {ones({2, 3})}, {full({2, 3}, 2.0)}, {full({4, 1}, 3.0, kFloat64), arange(3, kInt64)}, {full({2, 3}, 4.0)}};
      for (const auto& message : messages) {
        group.barrier()->wait();
        send_tensors(group, message, 1, 0, shapes).wait();
      }
      return;
    }
    auto next = [&] {
      PendingRecv pending = post_recv_tensors(group, 0, 0, shapes);
      group.barrier()->wait();
      return pending.wait();
    };
    std::vector<Tensor> first = next();  // the stream's first message
    THREAD_REQUIRE(first.size() == 1);
    THREAD_CHECK(first[0].sizes() == Shape{2, 3});
    THREAD_CHECK(first[0].sum().item<float>() == 6.0f);
    std::vector<Tensor> same = next();  // into the receives posted for [2, 3]
    THREAD_REQUIRE(same.size() == 1);
    THREAD_CHECK(same[0].sum().item<float>() == 12.0f);
    std::vector<Tensor> changed = next();  // the posted [2, 3] filled with zeros, then the new shapes
    THREAD_REQUIRE(changed.size() == 2);
    THREAD_CHECK(changed[0].sizes() == Shape{4, 1});
    THREAD_CHECK(changed[0].sum().item<double>() == 12.0);
    THREAD_CHECK(changed[1].to_vector<int64_t>() == std::vector<int64_t>{0, 1, 2});
    PendingRecv back = post_recv_tensors(group, 0, 0, shapes);
    group.barrier()->wait();
    std::vector<Tensor> got = back.wait();
    THREAD_REQUIRE(got.size() == 1);
    THREAD_CHECK(got[0].sum().item<float>() == 24.0f);
    THREAD_CHECK_THROWS_WITH(back.wait(), Catch::Contains("recv_tensors from rank 0 (tag 0): this receive was waited"));
  });
}

}  // namespace
