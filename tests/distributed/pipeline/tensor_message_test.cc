// Pipeline messages between thread ranks: any number of tensors of any dtypes and shapes,
// undefined and empty ones included, a header longer than its first send, and shapes that
// change from one message to the next.
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
  run_ranks(2, [&](int rank) {
    ThreadProcessGroup group(world, rank);
    if (rank == 0) {
      std::vector<PendingSend> sent;
      sent.push_back(send_tensors(group, mixed, 1, 0));
      sent.push_back(send_tensors(group, many_dims(), 1, 0));
      sent.push_back(send_tensors(group, {ones({7, 2})}, 1, 0));  // a new shape on the same stream
      for (auto& s : sent) s.wait();
      return;
    }
    std::vector<Tensor> got = recv_tensors(group, 0, 0);
    THREAD_REQUIRE(got.size() == mixed.size());
    THREAD_CHECK(got[0].dtype() == kInt64);
    THREAD_CHECK(got[0].to_vector<int64_t>() == std::vector<int64_t>{0, 1, 2, 3, 4, 5});
    THREAD_CHECK(got[0].sizes() == Shape{2, 3});
    THREAD_CHECK(!got[1].defined());
    THREAD_CHECK(got[2].sizes() == Shape{0, 4});
    THREAD_CHECK(got[3].to_vector<double>() == std::vector<double>{2.5, 2.5, 2.5});
    THREAD_CHECK(got[4].dtype() == kBool);
    std::vector<Tensor> many = recv_tensors(group, 0, 0);
    THREAD_REQUIRE(many.size() == 12);
    for (int64_t i = 0; i < 12; ++i) {
      THREAD_CHECK(many[i].sizes() == Shape{1, 2, 1, 1, i + 1});
      THREAD_CHECK(many[i].sum().item<double>() == 2.0 * (i + 1) * i);
    }
    std::vector<Tensor> reshaped = recv_tensors(group, 0, 0);
    THREAD_CHECK((reshaped.size() == 1 && reshaped[0].sizes() == Shape{7, 2}));
  });
}

}  // namespace
