// Work::then: the chained step runs once, after the collective, on the waiting thread; its
// value is the result; a failed collective's error reaches the waiter and the step never runs.
#include "distributed/work.h"

#include <catch2/catch.hpp>
#include <stdexcept>

#include "tensor/native/ops.h"

namespace brisk::dist {
namespace {

// Completed by the test: successfully, or with an error.
class ScriptedWork final : public Work {
 public:
  bool is_completed() override { return done; }
  bool is_success() override { return done && !failure; }
  void wait() override {
    if (failure) std::rethrow_exception(failure);
  }
  std::optional<std::chrono::steady_clock::time_point> completed_at() override { return at; }
  bool done = false;
  std::exception_ptr failure;
  std::optional<std::chrono::steady_clock::time_point> at;
};

TEST_CASE("Work::then runs its step once after the work, and its value is the result") {
  auto first = std::make_shared<ScriptedWork>();
  Tensor buffer = native::zeros({3}, kFloat32);
  int runs = 0;
  std::shared_ptr<Work> chained = first->then([&] {
    ++runs;
    return buffer;
  });
  CHECK_FALSE(first->result().defined());
  CHECK_FALSE(chained->is_completed());
  CHECK(runs == 0);
  first->done = true;
  first->at = std::chrono::steady_clock::now();
  CHECK(chained->is_completed());
  CHECK(chained->is_success());
  CHECK(chained->completed_at() == first->at);
  chained->wait();
  chained->wait();
  CHECK(runs == 1);
  CHECK(chained->result().raw_data() == buffer.raw_data());
}

TEST_CASE("Work::then passes the work's error to the waiter and does not run its step") {
  auto first = std::make_shared<ScriptedWork>();
  first->done = true;
  first->failure = std::make_exception_ptr(std::runtime_error("all_reduce #3 failed: rank 1 never entered it"));
  bool ran = false;
  std::shared_ptr<Work> chained = first->then([&] {
    ran = true;
    return Tensor();
  });
  CHECK_FALSE(chained->is_success());
  CHECK_THROWS_WITH(chained->wait(), "all_reduce #3 failed: rank 1 never entered it");
  CHECK_FALSE(ran);
  CHECK_FALSE(chained->result().defined());
}

}  // namespace
}  // namespace brisk::dist
