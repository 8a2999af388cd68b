// ProcessGroup's defaults: an operation a backend does not implement fails naming the
// operation, the backend and the rank, as Backend's optional kernels do.
#include "distributed/process_group.h"

#include <catch2/catch.hpp>
#include <functional>

#include "tensor/error.h"
#include "tensor/native/ops.h"

namespace brisk::dist {
namespace {

using Catch::Matchers::Contains;

// Implements broadcast only.
class BroadcastOnly final : public ProcessGroup {
 public:
  BroadcastOnly() : ProcessGroup(1, 2, kCPU) {}
  std::string backend_name() const override { return "broadcast-only"; }
  std::shared_ptr<Work> broadcast(Tensor&, int) override {
    ++broadcasts;
    return nullptr;
  }
  int broadcasts = 0;
};

TEST_CASE("an operation a backend does not implement fails naming it and the backend") {
  BroadcastOnly group;
  Tensor t = native::zeros({2}, kFloat32);
  std::vector<Tensor> ts = {t, t};
  group.broadcast(t, 0);
  CHECK(group.broadcasts == 1);
  // Catch's composed matchers hold their parts by reference: build each where it is used.
  auto fails_naming = [](const std::function<void()>& call, const std::string& op) {
    try {
      call();
    } catch (const Error& e) {
      std::string what = e.what();
      CHECK_THAT(what, Contains(op + " not implemented by backend 'broadcast-only'") && Contains("rank 1/2"));
      return;
    }
    FAIL(op << " did not throw");
  };
  fails_naming([&] { group.all_reduce(t); }, "all_reduce");
  fails_naming([&] { group.reduce(t, 0); }, "reduce");
  fails_naming([&] { group.all_gather(ts, t); }, "all_gather");
  fails_naming([&] { group.gather(ts, t, 0); }, "gather");
  fails_naming([&] { group.scatter(t, ts, 0); }, "scatter");
  fails_naming([&] { group.reduce_scatter(t, ts); }, "reduce_scatter");
  fails_naming([&] { group.all_to_all(ts, ts); }, "all_to_all");
  fails_naming([&] { group.barrier(); }, "barrier");
  fails_naming([&] { group.send(t, 0); }, "send");
  fails_naming([&] { group.recv(t, 0); }, "recv");
  CHECK_THROWS_AS(group.barrier(), Error);
}

}  // namespace
}  // namespace brisk::dist
