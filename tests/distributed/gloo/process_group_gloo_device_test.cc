// ProcessGroupGloo on the test device (tests/test_device.h; ranks as threads): every operation
// on its tensors gives what it gives on CPU tensors, staged through host memory without the
// host ever reading device memory (on sim:0 a host read would crash the test); CPU tensors
// are refused at the call. Its twins run it on sim:0 (CI) and on cuda:0, where three ranks
// share one GPU (GPU builds; compiled only where no GPU was lent).
#include <catch2/catch.hpp>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "distributed/gloo/process_group_gloo.h"
#include "tensor/native/ops.h"
#include "tests/distributed/gloo/gloo_thread_ranks.h"
#include "tests/test_device.h"

#if defined(BRISK_TEST_DEVICE_SIM)
#include "tensor/sim/sim_backend.h"
#endif

using namespace brisk;
using namespace brisk::dist;
using test::test_device;
using testing::make;
using testing::run_gloo_ranks;

namespace {

// Every operation of the group on tensors of `device` (made on the CPU, moved there); returns
// each result, read back through .to(kCPU), by name.
std::map<std::string, std::vector<double>> every_operation(ProcessGroupGloo& g, Device device) {
  const int r = g.rank(), n = g.size();
  auto on = [&](const Tensor& t) { return native::to(t, device, t.dtype()); };
  auto read = [](const Tensor& t) { return native::to(t, kCPU, kFloat64).to_vector<double>(); };
  std::map<std::string, std::vector<double>> results;

  Tensor sum = on(make<float>({1.f + r, -2.f * r, 0.5f}));
  g.all_reduce(sum)->wait();
  results["all_reduce sum"] = read(sum);
  Tensor avg = on(make<int64_t>({10 * r + 1, -7}));
  g.all_reduce(avg, dist::ReduceOp::AVG)->wait();
  results["all_reduce avg int64"] = read(avg);
  Tensor half = on(native::to(make<float>({0.25f * r, 3.f}), kCPU, kBFloat16));
  g.all_reduce(half, dist::ReduceOp::MAX)->wait();
  results["all_reduce max bfloat16"] = read(half);

  Tensor b = on(make<int32_t>({r == 1 ? 42 : -1, r}));
  g.broadcast(b, 1)->wait();
  results["broadcast"] = read(b);

  Tensor red = on(make<double>({double(r + 1), 2.0}));
  g.reduce(red, 2, dist::ReduceOp::PRODUCT)->wait();
  if (r == 2) results["reduce"] = read(red);

  std::vector<Tensor> gathered;
  for (int i = 0; i < n; ++i) gathered.push_back(on(make<float>({0, 0})));
  g.all_gather(gathered, on(make<float>({float(r), float(r * r)})))->wait();
  for (int i = 0; i < n; ++i) results["all_gather " + std::to_string(i)] = read(gathered[i]);

  std::vector<Tensor> at_root;
  for (int i = 0; i < n; ++i) at_root.push_back(on(make<uint8_t>({0})));
  g.gather(at_root, on(make<uint8_t>({uint8_t(7 + r)})), 0)->wait();
  if (r == 0)
    for (int i = 0; i < n; ++i) results["gather " + std::to_string(i)] = read(at_root[i]);

  std::vector<Tensor> pieces;
  if (r == 2)
    for (int i = 0; i < n; ++i) pieces.push_back(on(make<float>({100.f + i, -1.f * i})));
  Tensor piece = on(make<float>({0, 0}));
  g.scatter(piece, pieces, 2)->wait();
  results["scatter"] = read(piece);

  std::vector<Tensor> inputs;
  for (int i = 0; i < n; ++i) inputs.push_back(on(make<float>({float(10 * r + i)})));
  Tensor mine = on(make<float>({0}));
  g.reduce_scatter(mine, inputs, dist::ReduceOp::SUM)->wait();
  results["reduce_scatter"] = read(mine);

  std::vector<Tensor> sends, recvs;
  for (int j = 0; j < n; ++j) sends.push_back(on(make<int64_t>(std::vector<int64_t>(j + 1, 10 * r + j))));
  for (int j = 0; j < n; ++j) recvs.push_back(on(make<int64_t>(std::vector<int64_t>(r + 1, -1))));
  g.all_to_all(recvs, sends)->wait();
  for (int j = 0; j < n; ++j) results["all_to_all " + std::to_string(j)] = read(recvs[j]);

  g.barrier()->wait();

  // A ring: send to the next rank, receive from the previous one.
  Tensor out = on(make<float>({float(r), 1000.f + r}));
  Tensor in = on(make<float>({0, 0}));
  auto s = g.send(out, (r + 1) % n, 3);
  auto v = g.recv(in, (r + n - 1) % n, 3);
  s->wait();
  v->wait();
  results["send/recv"] = read(in);
  return results;
}

// Each rank's results of every_operation on a group of `device`.
std::vector<std::map<std::string, std::vector<double>>> results_on(Device device) {
  std::vector<std::map<std::string, std::vector<double>>> per_rank(3);
  std::mutex mutex;
  ProcessGroupOptions options;
  options.device = device;
  run_gloo_ranks(
      3,
      [&](ProcessGroupGloo& g) {
        THREAD_REQUIRE(g.device() == device);
        auto results = every_operation(g, device);
        std::lock_guard<std::mutex> lock(mutex);
        per_rank[static_cast<size_t>(g.rank())] = results;
      },
      options);
  return per_rank;
}

}  // namespace

TEST_CASE("ProcessGroupGloo on the test device: every operation gives the CPU group's results") {
  auto on_cpu = results_on(kCPU);
#if defined(BRISK_TEST_DEVICE_SIM)
  sim::reset_copy_counts();
#endif
  auto on_device = results_on(test_device());
  for (int r = 0; r < 3; ++r) {
    INFO("rank " << r);
    CHECK(on_device[r].size() == on_cpu[r].size());
    for (const auto& [name, values] : on_cpu[r]) {
      INFO(name);
      CHECK(on_device[r][name] == values);
    }
  }
  CHECK(on_cpu[0]["all_reduce sum"] == std::vector<double>{6, -6, 1.5});
  CHECK(on_cpu[0]["all_reduce avg int64"] == std::vector<double>{11, -7});
  CHECK(on_cpu[1]["broadcast"] == std::vector<double>{42, 1});
  CHECK(on_cpu[2]["reduce"] == std::vector<double>{6, 8});
  CHECK(on_cpu[1]["all_gather 2"] == std::vector<double>{2, 4});
  CHECK(on_cpu[0]["gather 1"] == std::vector<double>{8});
  CHECK(on_cpu[1]["scatter"] == std::vector<double>{101, -1});
  CHECK(on_cpu[2]["reduce_scatter"] == std::vector<double>{0 + 2 + 10 + 2 + 20 + 2});
  CHECK(on_cpu[1]["all_to_all 2"] == std::vector<double>{21, 21});
  CHECK(on_cpu[2]["send/recv"] == std::vector<double>{1, 1001});
#if defined(BRISK_TEST_DEVICE_SIM)
  // The staging went through the device's own copies.
  CHECK(sim::copy_counts().device_to_host > 0);
  CHECK(sim::copy_counts().host_to_device > 0);
#endif
}

TEST_CASE("ProcessGroupGloo on the test device: CPU tensors and other devices' tensors are refused at the call") {
  const Device device = test_device();
  if (device.is_cpu()) return;  // a CPU group's refusals: process_group_gloo_test
  ProcessGroupOptions options;
  options.device = device;
  run_gloo_ranks(
      2,
      [&](ProcessGroupGloo& g) {
        const std::string mine = "but the group's device is " + device.str();
        Tensor host = make<float>({1, 2});
        THREAD_CHECK_THROWS_WITH(g.all_reduce(host),
                                 Catch::Contains("ProcessGroupGloo all_reduce: rank " + std::to_string(g.rank()) +
                                                 " of 2: tensor is on cpu, " + mine));
        auto to = [&](Device d) { return native::to(host, d, kFloat32); };
        std::vector<Tensor> outputs{to(device), host};
        THREAD_CHECK_THROWS_WITH(g.all_gather(outputs, to(device)), Catch::Contains("outputs[1] is on cpu, " + mine));
        if (device.is_sim()) {
          Tensor other = to(sim_device(1));
          THREAD_CHECK_THROWS_WITH(g.broadcast(other, 0), Catch::Contains("tensor is on sim:1, " + mine));
        }
        // The refused calls queued nothing: the group goes on.
        Tensor ok = to(device);
        g.all_reduce(ok)->wait();
        THREAD_CHECK(native::to(ok, kCPU, kFloat32).to_vector<float>() == std::vector<float>{2, 4});
      },
      options);
}

#if defined(BRISK_TEST_DEVICE_SIM)
TEST_CASE("ProcessGroupGloo on sim:0: host buffers come from the device type's pinned allocator when it has one") {
  // The simulated device registers no pinned allocator (plain host memory, as without CUDA);
  // a stand-in registered for it records what the staging asks for, as CUDA's would serve it.
  struct Recording final : Allocator {
    std::mutex mutex;
    std::vector<Device> requests;
    DataPtr allocate(size_t nbytes, Device device) override {
      std::lock_guard<std::mutex> lock(mutex);
      requests.push_back(device);
      return cpu_allocator()->allocate(nbytes, kCPU);
    }
  } pinned;
  REQUIRE(pinned_allocator_for(DeviceType::Sim) == nullptr);
  struct Registered {
    explicit Registered(Allocator* a) { register_allocator(DeviceType::Sim, a, MemoryKind::kPinnedHost); }
    ~Registered() { register_allocator(DeviceType::Sim, nullptr, MemoryKind::kPinnedHost); }
  } registered(&pinned);
  ProcessGroupOptions options;
  options.device = sim_device(0);
  run_gloo_ranks(
      2,
      [&](ProcessGroupGloo& g) {
        Tensor t = native::to(make<float>({1.f + g.rank(), 2}), sim_device(0), kFloat32);
        g.all_reduce(t)->wait();
        THREAD_CHECK(native::to(t, kCPU, kFloat32).to_vector<float>() == std::vector<float>{3, 4});
      },
      options);
  REQUIRE(pinned.requests.size() >= 2);  // at least one staging buffer per rank
  for (Device d : pinned.requests) CHECK(d == sim_device(0));
}
#endif
