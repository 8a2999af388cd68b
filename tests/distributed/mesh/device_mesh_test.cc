// DeviceMesh over thread ranks: the layout (coordinates, each dimension's members, row-major as
// torch's init_device_mesh), collectives on every dimension's group, the errors, and DDP on the
// "dp" group of a 2x2 mesh equal to one process. device_mesh_multiprocess_test builds the mesh
// with dist::new_group across processes.
#include <catch2/catch.hpp>

#include "distributed/ddp/distributed_data_parallel.h"
#include "distributed/mesh/device_mesh.h"
#include "nn/nn.h"
#include "optim/sgd.h"
#include "tensor/native/ops.h"
#include "tests/distributed/mesh/thread_mesh.h"
#include "tests/thread_checks.h"

namespace brisk::dist::testing {
namespace {

using Catch::Matchers::Contains;

TEST_CASE("DeviceMesh 2x2x2 on 8 thread ranks: coordinates, members and collectives along every dimension") {
  ThreadMeshWorlds worlds;
  run_ranks(8, [&](int rank) {
    DeviceMesh mesh({{"dp", 2}, {"pp", 2}, {"tp", 2}}, rank, 8, worlds.factory(rank));
    const std::vector<int> coordinate{rank / 4, rank / 2 % 2, rank % 2};
    THREAD_CHECK(mesh.coordinate() == coordinate);
    THREAD_CHECK(mesh.ndim() == 3);
    THREAD_CHECK(mesh.dim_names() == std::vector<std::string>{"dp", "pp", "tp"});
    const std::map<std::string, std::vector<int>> members{
        {"dp", {rank % 4, rank % 4 + 4}},
        {"pp", {rank / 4 * 4 + rank % 2, rank / 4 * 4 + rank % 2 + 2}},
        {"tp", {rank / 2 * 2, rank / 2 * 2 + 1}},
    };
    int d = 0;
    for (const auto& name : mesh.dim_names()) {
      const std::vector<int>& expected = members.at(name);
      THREAD_CHECK(mesh.ranks_along(name) == expected);
      THREAD_CHECK(mesh.size(name) == 2);
      THREAD_CHECK(mesh.local_rank(name) == coordinate[d]);
      THREAD_CHECK(mesh.group(name)->size() == 2);
      THREAD_CHECK(mesh.group(name)->rank() == coordinate[d]);
      // The group's sum of global ranks, and its gather in local-rank order.
      Tensor value = native::full({1}, Scalar(static_cast<double>(rank)), kFloat64);
      mesh.group(name)->all_reduce(value)->wait();
      THREAD_CHECK(value.item<double>() == expected[0] + expected[1]);
      std::vector<Tensor> gathered{native::empty({1}, kFloat64), native::empty({1}, kFloat64)};
      mesh.group(name)->all_gather(gathered, native::full({1}, Scalar(static_cast<double>(rank)), kFloat64))->wait();
      THREAD_CHECK(gathered[0].item<double>() == expected[0]);
      THREAD_CHECK(gathered[1].item<double>() == expected[1]);
      ++d;
    }
    if (rank == 5) THREAD_CHECK(mesh.describe() == "DeviceMesh(dp=2, pp=2, tp=2), rank 5 at (1, 0, 1)");
  });
}

TEST_CASE("DeviceMesh asks for every group on every rank, in one order (dist::new_group's contract)") {
  const std::vector<std::vector<int>> expected{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {0, 2}, {1, 3},
                                               {4, 6}, {5, 7}, {0, 1}, {2, 3}, {4, 5}, {6, 7}};
  for (int rank : {0, 5}) {
    std::vector<std::vector<int>> asked;
    ThreadMeshWorlds worlds;  // never collective here: each group is only made, not used
    const DeviceMesh::GroupFactory make = worlds.factory(rank);
    DeviceMesh mesh({{"dp", 2}, {"pp", 2}, {"tp", 2}}, rank, 8, [&](const std::vector<int>& ranks) {
      asked.push_back(ranks);
      return make(ranks);
    });
    CHECK(asked == expected);
  }
}

TEST_CASE("DeviceMesh of uneven sizes (3x2) and of one dimension") {
  ThreadMeshWorlds worlds;
  run_ranks(6, [&](int rank) {
    DeviceMesh mesh({{"dp", 3}, {"tp", 2}}, rank, 6, worlds.factory(rank));
    THREAD_CHECK(mesh.ranks_along("dp") == std::vector<int>{rank % 2, rank % 2 + 2, rank % 2 + 4});
    THREAD_CHECK(mesh.ranks_along("tp") == std::vector<int>{rank / 2 * 2, rank / 2 * 2 + 1});
  });
  ThreadMeshWorlds flat;
  run_ranks(3, [&](int rank) {
    DeviceMesh mesh({{"dp", 3}}, rank, 3, flat.factory(rank));
    THREAD_CHECK(mesh.ranks_along("dp") == std::vector<int>{0, 1, 2});
    THREAD_CHECK(mesh.local_rank("dp") == rank);
  });
}

TEST_CASE("DeviceMesh errors name the sizes, the unknown dimension and the repeated name") {
  int calls = 0;
  auto never = [&calls](const std::vector<int>&) -> GroupPtr {
    ++calls;
    return nullptr;
  };
  CHECK_THROWS_WITH(DeviceMesh({{"dp", 2}, {"tp", 3}}, 0, 8, never),
                    Contains("DeviceMesh(dp=2, tp=3): the product of the sizes is 6 but the world size is 8"));
  CHECK_THROWS_WITH(DeviceMesh({{"dp", 2}, {"dp", 4}}, 0, 8, never), Contains("the dimension name 'dp' appears twice"));
  CHECK_THROWS_WITH(DeviceMesh({{"dp", 0}, {"tp", 8}}, 0, 8, never), Contains("dimension 'dp' has size 0"));
  CHECK(calls == 0);

  ThreadMeshWorlds worlds;
  run_ranks(2, [&](int rank) {
    DeviceMesh mesh({{"dp", 1}, {"tp", 2}}, rank, 2, worlds.factory(rank));
    THREAD_CHECK_THROWS_WITH(mesh.group("pp"), Contains("DeviceMesh: no dimension 'pp'; the mesh has dp, tp"));
    THREAD_CHECK(mesh.group("dp")->size() == 1);
  });
}

// y = fc2(relu(fc1(x))), float64.
struct SmallNetImpl : nn::Module {
  SmallNetImpl() {
    fc1 = register_module("fc1", nn::Linear(5, 7));
    fc2 = register_module("fc2", nn::Linear(7, 3));
  }
  Tensor forward(const Tensor& x) override { return fc2(nn::functional::relu(fc1(x))); }
  nn::Linear fc1{nullptr}, fc2{nullptr};
};
BRISK_MODULE(SmallNet);

TEST_CASE("DDP over mesh.group(\"dp\") of a 2x2 mesh trains as one process on the global batch") {
  constexpr int kSteps = 3;
  Generator generator(21);
  const Tensor x = randn({8, 5}, kFloat64, &generator), y = randn({8, 3}, kFloat64, &generator);
  manual_seed(5);
  SmallNet reference;
  reference->to(kFloat64);
  const nn::StateDict initial = reference->state_dict();
  nn::StateDict start;
  for (const auto& [key, value] : initial) start.insert(key, value.clone());
  optim::SGD reference_opt(reference->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  for (int step = 0; step < kSteps; ++step) {
    reference_opt.zero_grad();
    nn::functional::mse_loss(reference(x), y).backward();
    reference_opt.step();
  }

  ThreadMeshWorlds worlds;
  std::vector<double> max_diff(4, -1);
  run_ranks(4, [&](int rank) {
    DeviceMesh mesh({{"dp", 2}, {"tp", 2}}, rank, 4, worlds.factory(rank));
    SmallNet model;
    model->to(kFloat64);
    model->load_state_dict(start);
    DistributedDataParallel ddp(model, mesh.group("dp"));
    optim::SGD opt(ddp->parameters(), optim::SGDOptions(0.1).momentum(0.9));
    // The dp replica's half of the batch; the two tp ranks of a replica see the same rows.
    const int64_t begin = mesh.local_rank("dp") * 4;
    for (int step = 0; step < kSteps; ++step) {
      opt.zero_grad();
      nn::functional::mse_loss(ddp(x.narrow(0, begin, 4)), y.narrow(0, begin, 4)).backward();
      opt.step();
    }
    double diff = 0;
    const nn::StateDict trained = model->state_dict(), expected = reference->state_dict();
    for (const auto& [key, value] : trained) diff = std::max(diff, (value - expected[key]).abs().max().item<double>());
    max_diff[rank] = diff;
  });
  for (int rank = 0; rank < 4; ++rank) {
    INFO("rank " << rank);
    CHECK(max_diff[rank] >= 0);
    CHECK(max_diff[rank] < 1e-12);
  }
}

}  // namespace
}  // namespace brisk::dist::testing
