// ProcessGroupGloo with its ranks as threads of one process (the multi-process tests run
// the same collectives through the launcher): every op and ReduceOp, async Work, desync
// and timeout errors.
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <functional>
#include <thread>

#include "distributed/gloo/process_group_gloo.h"
#include "distributed/store/file_store.h"
#include "tensor/error.h"
#include "tensor/native/ops.h"
#include "tensor/storage.h"
#include "tests/distributed/gloo/gloo_thread_ranks.h"
#include "tests/scratch_files.h"

using namespace brisk;
using namespace brisk::dist;
using namespace std::chrono_literals;

using testing::make;
using testing::run_gloo_ranks;

TEST_CASE("ProcessGroupGloo: every collective on 3 ranks") {
  run_gloo_ranks(3, [](ProcessGroupGloo& g) {
    const int r = g.rank(), n = g.size();
    Tensor t = make<float>({1.f + r, 10.f * r});
    g.all_reduce(t)->wait();
    THREAD_CHECK(t.to_vector<float>() == std::vector<float>{6, 30});

    Tensor b = make<int64_t>({r == 1 ? 42 : -1, 7});
    g.broadcast(b, 1)->wait();
    THREAD_CHECK(b.to_vector<int64_t>() == std::vector<int64_t>{42, 7});

    Tensor red = make<double>({double(r + 1)});
    g.reduce(red, 2, dist::ReduceOp::PRODUCT)->wait();
    if (r == 2) THREAD_CHECK(red.to_vector<double>() == std::vector<double>{6});

    std::vector<Tensor> gathered;
    for (int i = 0; i < n; ++i) gathered.push_back(make<int32_t>({0, 0}));
    g.all_gather(gathered, make<int32_t>({r, r * r}))->wait();
    for (int i = 0; i < n; ++i) THREAD_CHECK(gathered[i].to_vector<int32_t>() == std::vector<int32_t>{i, i * i});

    std::vector<Tensor> at_root;
    for (int i = 0; i < n; ++i) at_root.push_back(make<uint8_t>({0}));
    g.gather(at_root, make<uint8_t>({uint8_t(100 + r)}), 0)->wait();
    if (r == 0) {
      for (int i = 0; i < n; ++i) THREAD_CHECK(at_root[i].to_vector<uint8_t>()[0] == 100 + i);
    }

    std::vector<Tensor> pieces;
    for (int i = 0; i < n; ++i) pieces.push_back(make<float>({float(i), float(-i)}));
    Tensor mine = make<float>({0, 0});
    g.scatter(mine, r == 2 ? pieces : std::vector<Tensor>(), 2)->wait();
    THREAD_CHECK(mine.to_vector<float>() == std::vector<float>{float(r), float(-r)});

    // reduce_scatter: inputs[j] on rank r = 10 r + j; rank j gets sum over r.
    std::vector<Tensor> inputs;
    for (int j = 0; j < n; ++j) inputs.push_back(make<int64_t>({10 * r + j}));
    Tensor out = make<int64_t>({0});
    g.reduce_scatter(out, inputs, dist::ReduceOp::SUM)->wait();
    THREAD_CHECK(out.to_vector<int64_t>()[0] == 30 + 3 * r);

    // all_to_all with a different length per peer: rank r sends j+1 copies of 100 r + j to j.
    std::vector<Tensor> sends, recvs;
    for (int j = 0; j < n; ++j) sends.push_back(make<float>(std::vector<float>(j + 1, 100.f * r + j)));
    for (int j = 0; j < n; ++j) recvs.push_back(make<float>(std::vector<float>(r + 1, 0)));
    g.all_to_all(recvs, sends)->wait();
    for (int j = 0; j < n; ++j) THREAD_CHECK(recvs[j].to_vector<float>() == std::vector<float>(r + 1, 100.f * j + r));

    g.barrier()->wait();
  });
}

TEST_CASE("ProcessGroupGloo: every ReduceOp and dtype in all_reduce on 4 ranks") {
  run_gloo_ranks(4, [](ProcessGroupGloo& g) {
    const int r = g.rank();
    auto reduced = [&](dist::ReduceOp op, auto value) {
      using T = decltype(value);
      Tensor t = make<T>({value});
      g.all_reduce(t, op)->wait();
      return static_cast<const T*>(t.raw_data())[0];
    };
    // Ranks hold 1, 2, 3, 4 (times a sign for MIN/MAX checks).
    THREAD_CHECK(reduced(dist::ReduceOp::SUM, float(r + 1)) == 10.f);
    THREAD_CHECK(reduced(dist::ReduceOp::PRODUCT, double(r + 1)) == 24.0);
    THREAD_CHECK(reduced(dist::ReduceOp::MIN, int64_t(r % 2 ? -r : r)) == -3);
    THREAD_CHECK(reduced(dist::ReduceOp::MAX, int32_t(r % 2 ? -r : r)) == 2);
    THREAD_CHECK(reduced(dist::ReduceOp::AVG, float(r + 1)) == 2.5f);
    THREAD_CHECK(reduced(dist::ReduceOp::AVG, int64_t(r + 1)) == 2);    // 10 / 4 truncated
    THREAD_CHECK(reduced(dist::ReduceOp::AVG, int32_t(-r - 1)) == -2);  // toward zero
    THREAD_CHECK(reduced(dist::ReduceOp::SUM, uint8_t(100)) == uint8_t(400 % 256));
    THREAD_CHECK(float(reduced(dist::ReduceOp::SUM, BFloat16(0.5f * (r + 1)))) == 5.f);
    THREAD_CHECK(float(reduced(dist::ReduceOp::MAX, Half(float(r)))) == 3.f);
    Tensor red = make<int32_t>({r + 1, 2});
    g.reduce(red, 3, dist::ReduceOp::AVG)->wait();
    if (r == 3) THREAD_CHECK(red.to_vector<int32_t>() == std::vector<int32_t>{2, 2});
    std::vector<Tensor> inputs;
    for (int j = 0; j < 4; ++j) inputs.push_back(make<float>({float(r * j)}));
    Tensor out = make<float>({0});
    g.reduce_scatter(out, inputs, dist::ReduceOp::MAX)->wait();
    THREAD_CHECK(out.to_vector<float>()[0] == 3.f * r);
  });
}

TEST_CASE("ProcessGroupGloo: async work overlaps and completes in order; send/recv") {
  run_gloo_ranks(2, [](ProcessGroupGloo& g) {
    const int r = g.rank();
    std::vector<Tensor> tensors;
    std::vector<std::shared_ptr<Work>> works;
    for (int i = 0; i < 20; ++i) {
      tensors.push_back(make<float>(std::vector<float>(1000, float(i + r))));
      works.push_back(g.all_reduce(tensors.back()));
    }
    for (int i = 19; i >= 0; --i) {
      works[i]->wait();
      THREAD_CHECK(works[i]->is_completed());
      THREAD_CHECK(works[i]->is_success());
      THREAD_CHECK(tensors[i].to_vector<float>()[999] == float(2 * i + 1));
    }
    // Both ranks send first, then receive: posting must not block.
    Tensor out = make<int64_t>({r, 1000 + r});
    Tensor in = make<int64_t>({0, 0});
    auto s = g.send(out, 1 - r, 7);
    auto v = g.recv(in, 1 - r, 7);
    s->wait();
    v->wait();
    THREAD_CHECK(in.to_vector<int64_t>() == std::vector<int64_t>{1 - r, 1000 + 1 - r});
  });
}

TEST_CASE("ProcessGroupGloo: a receive completes when its message comes, whatever receives of other streams wait") {
  // Rank 0 posts a receive on tag 0, then one on tag 1; rank 1 sends on tag 0 only after rank
  // 0 has answered the tag 1 message. One waiter for all receives would wait for tag 0 first
  // and never complete tag 1's (a timeout); each (peer, tag) has its own.
  ProcessGroupOptions options;
  options.timeout = 10s;
  run_gloo_ranks(
      2,
      [](ProcessGroupGloo& g) {
        if (g.rank() == 0) {
          Tensor late = make<int64_t>({0}), early = make<int64_t>({0});
          auto late_recv = g.recv(late, 1, 0);
          auto early_recv = g.recv(early, 1, 1);
          early_recv->wait();
          THREAD_CHECK(early.to_vector<int64_t>() == std::vector<int64_t>{11});
          THREAD_CHECK_FALSE(late_recv->is_completed());
          g.send(make<int64_t>({12}), 1, 2)->wait();
          late_recv->wait();
          THREAD_CHECK(late.to_vector<int64_t>() == std::vector<int64_t>{13});
          return;
        }
        g.send(make<int64_t>({11}), 0, 1)->wait();
        Tensor answer = make<int64_t>({0});
        g.recv(answer, 0, 2)->wait();
        THREAD_CHECK(answer.to_vector<int64_t>() == std::vector<int64_t>{12});
        g.send(make<int64_t>({13}), 0, 0)->wait();
      },
      options);
}

// Rank 1 all-reduces 5 elements, the others 4. With the check on, the desync monitor finds it
// from the published signatures, and every rank's wait() fails promptly; with it off, the
// mismatched calls never exchange data (their Gloo tags differ, so no buffer-size abort), time
// out, and the timeout's diagnosis names the same mismatch. The group is unusable afterwards.
void expect_size_mismatch_named(bool check_desync, std::chrono::milliseconds within) {
  ProcessGroupOptions options;
  options.timeout = 2s;
  options.check_desync = check_desync;
  run_gloo_ranks(
      3,
      [&](ProcessGroupGloo& g) {
        Tensor t = make<float>(std::vector<float>(g.rank() == 1 ? 5 : 4, 1.f));
        auto start = std::chrono::steady_clock::now();
        auto work = g.all_reduce(t);
        try {
          work->wait();
          THREAD_FAIL("no desync error");
        } catch (const Error& e) {
          THREAD_CHECK(std::chrono::steady_clock::now() - start < within);
          std::string what = e.what();
          THREAD_CHECK_THAT(what,
                            Catch::Contains("collective desync at #0: ranks [0, 2] called all_reduce #0(numel 4, "
                                            "float32, SUM); ranks [1] called all_reduce #0(numel 5, float32, SUM); "
                                            "odd rank: 1"));
        }
        THREAD_CHECK_FALSE(work->is_success());
        THREAD_CHECK_THROWS_WITH(g.barrier()->wait(), Catch::Contains("an earlier collective on this group failed: ") &&
                                                          Catch::Contains("collective desync at #0"));
      },
      options);
}

TEST_CASE("ProcessGroupGloo: a size mismatch fails every rank naming the odd one, check on") {
  expect_size_mismatch_named(true, 1500ms);  // found by the monitor, before the 2 s timeout
}

TEST_CASE("ProcessGroupGloo: a size mismatch fails every rank naming the odd one, check off") {
  expect_size_mismatch_named(false, 6s);  // at the 2 s timeout, plus diagnosis
}

TEST_CASE("ProcessGroupGloo: a rank that skips a collective is named after the timeout") {
  ProcessGroupOptions options;
  options.timeout = 1500ms;
  auto start = std::chrono::steady_clock::now();
  run_gloo_ranks(
      3,
      [](ProcessGroupGloo& g) {
        if (g.rank() == 2) {
          std::this_thread::sleep_for(3s);  // never calls the all_reduce
          return;
        }
        Tensor t = make<float>({1.f});
        try {
          g.all_reduce(t)->wait();
          THREAD_FAIL("no timeout");
        } catch (const Error& e) {
          std::string what = e.what();
          THREAD_CHECK_THAT(
              what, Catch::Contains("all_reduce #0") && Catch::Contains("Ranks that never entered all_reduce #0: [2]"));
        }
        // The group is unusable afterwards, and says why.
        THREAD_CHECK_THROWS_WITH(g.barrier()->wait(), Catch::Contains("an earlier collective on this group failed: ") &&
                                                          Catch::Contains("never entered all_reduce #0: [2]"));
      },
      options);
  CHECK(std::chrono::steady_clock::now() - start < 8s);
}

// The mismatched all_reduce stays stuck in Gloo until its 6 s timeout; the calls after the
// failure do not queue behind it: they fail at once, naming the first failure.
TEST_CASE("ProcessGroupGloo: after a collective failed, the next calls fail at once with the first error") {
  ProcessGroupOptions options;
  options.timeout = 6s;
  run_gloo_ranks(
      2,
      [&](ProcessGroupGloo& g) {
        Tensor t = make<float>(std::vector<float>(g.rank() == 1 ? 5 : 4, 1.f));
        THREAD_CHECK_THROWS_WITH(g.all_reduce(t)->wait(), Catch::Contains("collective desync at #0"));
        auto start = std::chrono::steady_clock::now();
        std::vector<std::shared_ptr<Work>> next = {g.all_reduce(t), g.barrier(), g.send(t, 1 - g.rank()),
                                                   g.recv(t, 1 - g.rank())};
        for (auto& work : next) {
          THREAD_CHECK(work->is_completed());
          THREAD_CHECK_FALSE(work->is_success());
          THREAD_CHECK_THROWS_WITH(work->wait(), Catch::Contains(" not run: an earlier collective on this group "
                                                                 "failed: ProcessGroupGloo") &&
                                                     Catch::Contains("collective desync at #0: ranks"));
        }
        THREAD_CHECK(std::chrono::steady_clock::now() - start < 500ms);
      },
      options);
}

TEST_CASE("ProcessGroupGloo: argument errors are raised at the call") {
  run_gloo_ranks(2, [](ProcessGroupGloo& g) {
    Tensor t = native::transpose(native::view(make<float>({1, 2, 3, 4}), {2, 2}), 0, 1);
    THREAD_CHECK_THROWS_WITH(g.all_reduce(t), Catch::Contains("contiguous"));
    Tensor b = native::empty({2}, TensorOptions(kBool));
    THREAD_CHECK_THROWS_WITH(g.all_reduce(b), Catch::Contains("dtype bool is not supported"));
    Tensor x = make<float>({1});
    THREAD_CHECK_THROWS_WITH(g.broadcast(x, 5), Catch::Contains("root 5"));
    std::vector<Tensor> one{x};
    THREAD_CHECK_THROWS_WITH(g.all_gather(one, x), Catch::Contains("1 tensors, the group has 2 ranks"));
    std::vector<Tensor> mixed{x, make<double>({1})};
    THREAD_CHECK_THROWS_WITH(g.all_gather(mixed, x), Catch::Contains("outputs[1] is float64, but float32 is expected"));
    std::vector<Tensor> longer{x, make<float>({1, 2})};
    THREAD_CHECK_THROWS_WITH(g.all_gather(longer, x),
                             Catch::Contains("outputs[1] has 2 elements ([2]), but 1 are expected"));
    THREAD_CHECK_THROWS_WITH(g.gather(one, Tensor(), 0), Catch::Contains("input is an undefined tensor"));
    THREAD_CHECK_THROWS_WITH(g.send(x, g.rank()),
                             Catch::Contains("peer rank " + std::to_string(g.rank()) + " is not another rank"));
  });
}

TEST_CASE("ProcessGroupGloo: construction arguments are checked before connecting (collective_checks.h)") {
  auto store = std::make_shared<FileStore>(testing::scratch_dir("gloo_arguments") + "/store", 1s);
  CHECK_THROWS_WITH(ProcessGroupGloo(store, 3, 2),
                    Catch::Contains("ProcessGroupGloo 'default': rank 3 is not in [0, 2)"));
  CHECK_THROWS_WITH(ProcessGroupGloo(nullptr, 0, 1), Catch::Contains("ProcessGroupGloo 'default': no store"));
  ProcessGroupOptions no_time;
  no_time.timeout = 0ms;
  CHECK_THROWS_WITH(ProcessGroupGloo(store, 0, 1, no_time), Catch::Contains("timeout must be positive, got 0 ms"));
}

namespace {

// A tensor that claims to live on `device` (host memory underneath): enough for the argument
// checks, which look only at the device, without linking that device's backend.
Tensor claimed_on(Device device, int64_t numel) {
  size_t nbytes = static_cast<size_t>(numel) * sizeof(float);
  DataPtr data(new float[static_cast<size_t>(numel)], [](void* p) { delete[] static_cast<float*>(p); });
  auto storage = std::make_shared<Storage>(std::move(data), nbytes, device);
  return Tensor(std::make_shared<TensorImpl>(storage, Shape{numel}, Shape{1}, 0, kFloat32));
}

}  // namespace

TEST_CASE("ProcessGroupGloo: every tensor must be on the group's device, refused at the call") {
  // A CPU group (the default) refuses a tensor of another device, naming both devices.
  run_gloo_ranks(2, [](ProcessGroupGloo& g) {
    THREAD_CHECK(g.device() == kCPU);
    Tensor elsewhere = claimed_on(sim_device(0), 2);
    THREAD_CHECK_THROWS_WITH(g.all_reduce(elsewhere),
                             Catch::Contains("ProcessGroupGloo all_reduce: rank " + std::to_string(g.rank()) +
                                             " of 2: tensor is on sim:0, "
                                             "but the group's device is cpu"));
    std::vector<Tensor> outputs{make<float>({0, 0}), elsewhere};
    THREAD_CHECK_THROWS_WITH(g.all_gather(outputs, make<float>({1, 2})),
                             Catch::Contains("outputs[1] is on sim:0, but the group's device is cpu"));
    THREAD_CHECK_THROWS_WITH(g.send(elsewhere, 1 - g.rank()), Catch::Contains("send: rank"));
    // Nothing was queued by the refused calls: the group still works.
    Tensor ok = make<float>({1.f});
    g.all_reduce(ok)->wait();
    THREAD_CHECK(ok.to_vector<float>()[0] == 2.f);
  });
  // A group on sim:0 refuses CPU tensors (before touching any device memory).
  ProcessGroupOptions on_sim;
  on_sim.device = sim_device(0);
  run_gloo_ranks(
      2,
      [](ProcessGroupGloo& g) {
        THREAD_CHECK(g.device() == sim_device(0));
        Tensor host = make<float>({1, 2});
        THREAD_CHECK_THROWS_WITH(g.broadcast(host, 0),
                                 Catch::Contains("tensor is on cpu, but the group's device is sim:0"));
        std::vector<Tensor> inputs{claimed_on(sim_device(0), 2), host};
        Tensor out = claimed_on(sim_device(0), 2);
        THREAD_CHECK_THROWS_WITH(g.reduce_scatter(out, inputs),
                                 Catch::Contains("inputs[1] is on cpu, but the group's device is sim:0"));
        Tensor other = claimed_on(sim_device(1), 2);
        THREAD_CHECK_THROWS_WITH(g.recv(other, 1 - g.rank()),
                                 Catch::Contains("tensor is on sim:1, but the group's device is sim:0"));
      },
      on_sim);
}

TEST_CASE("ProcessGroupGloo: all_to_all where one rank sends and receives nothing") {
  run_gloo_ranks(3, [](ProcessGroupGloo& g) {
    const int r = g.rank();
    // Rank 0 exchanges no elements with anyone; ranks 1 and 2 swap two elements each.
    auto count = [](int from, int to) { return from == 0 || to == 0 ? 0 : 2; };
    std::vector<Tensor> sends, recvs;
    for (int j = 0; j < 3; ++j) sends.push_back(make<int64_t>(std::vector<int64_t>(count(r, j), 10 * r + j)));
    for (int j = 0; j < 3; ++j) recvs.push_back(make<int64_t>(std::vector<int64_t>(count(j, r), -1)));
    g.all_to_all(recvs, sends)->wait();
    for (int j = 0; j < 3; ++j)
      THREAD_CHECK(recvs[j].to_vector<int64_t>() == std::vector<int64_t>(count(j, r), 10 * j + r));
  });
}

namespace {

// The threads of this process (ThreadSanitizer adds one of its own with the first thread
// started: one is started first).
size_t thread_count() {
  std::thread([] {}).join();
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) n += entry.is_directory();
  return n;
}

}  // namespace

// (Each stream of receives adds its waiter at its first receive.)
TEST_CASE("ProcessGroupGloo: a group runs its worker, its send waiter, Gloo's transport loop and one watchdog thread") {
  auto store = std::make_shared<FileStore>(testing::scratch_dir("gloo_threads") + "/store", 5s);
  ProcessGroupOptions options;
  options.heartbeat_timeout = 30s;
  const size_t before = thread_count();
  {
    ProcessGroupGloo group(store, 0, 1, options);
    CHECK(thread_count() == before + 4);
  }
  CHECK(thread_count() == before);
}
