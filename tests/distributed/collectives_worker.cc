// The worker of the multi-process process-group tests: `collectives_worker <scenario> [arg]`,
// started by the launcher (RANK, WORLD_SIZE, MASTER_ADDR, ... in the environment), or, as
// collectives_worker_mpi, by mpirun. The backend is BRISK_TEST_BACKEND's (default gloo). Each
// scenario prints "<scenario> ok" when every check passed; a failed check throws.
//
//   collectives   every collective, every ReduceOp and dtype, through the free functions
//   async         many async all_reduces in flight, waited in reverse; isend/irecv ring
//   subgroups     new_group of the even and of the odd ranks, collectives inside them
//   store         the default store from every rank: add, set/get, compare_set, wait, delete
//   init <url>    init_process_group with init_method <url> (file://...), or "tcp": tcp://
//                 MASTER_ADDR:MASTER_PORT with rank and world size passed as arguments
//   timeout       the last rank never calls all_reduce #1; the others fail within the 2 s
//                 timeout (uncaught: the process terminates) naming it
//   desync        rank 1 all-reduces 5 elements, the others 4: the error names both calls
//   mismatch on|off  as desync, with check_desync on or off and a 3 s timeout; each rank catches
//                 the error of wait(), prints "mismatch error: <message>" and exits with code 3
//   peer_exit     rank 1 quits (status 0) before all_reduce #2; the others fail fast
//   rounded_once  (MPI) float16/bfloat16 all_reduce, reduce and reduce_scatter equal the float32
//                 result rounded once, where rounding each step would differ (4 ranks)
//   gloo_beside   a Gloo subgroup of every rank beside the default group, interleaved with it
//   missing_member rank 1 never creates the group of every rank; the others fail within the
//                 2 s rendezvous timeout naming it
#include <unistd.h>

#include <cstring>
#include <iostream>
#include <thread>

#include "distributed/distributed.h"
#include "tensor/error.h"
#include "tensor/native/ops.h"

using namespace brisk;
using namespace std::chrono_literals;
using DOp = dist::ReduceOp;

namespace {

template <typename T>
Tensor make(const std::vector<T>& values) {
  Tensor t = native::empty({static_cast<int64_t>(values.size())}, TensorOptions(dtype_of<T>::value));
  std::memcpy(t.raw_data(), values.data(), values.size() * sizeof(T));
  return t;
}

template <typename T>
std::vector<T> values(const Tensor& t) {
  const T* p = static_cast<const T*>(t.raw_data());
  return std::vector<T>(p, p + t.numel());
}

// The values of a 16-bit float tensor, exactly.
std::vector<double> as_double_any(const Tensor& t) {
  Tensor f = native::to(t, kCPU, kFloat64);
  return values<double>(f);
}

template <typename T>
std::vector<double> as_double(const Tensor& t) {
  std::vector<double> out;
  for (T v : values<T>(t)) out.push_back(static_cast<double>(static_cast<float>(v)));
  return out;
}

void say(const std::string& line) { std::cout << line << std::endl; }

#define EXPECT(cond, ...) \
  BRISK_CHECK(cond, "rank {}: check failed: {}: {}", dist::get_rank(), #cond, fmt::format(__VA_ARGS__))

// What rank r's element i reduces to under `op` over n ranks when rank r holds (r+1)(i+1),
// computed in T as the backend does (uint8 wraps).
template <typename T>
double expected(DOp op, int n, int i) {
  using Acc = std::conditional_t<std::is_integral_v<T>, int64_t, double>;
  Acc acc = static_cast<Acc>(static_cast<T>(i + 1));
  for (int r = 1; r < n; ++r) {
    Acc v = static_cast<Acc>((r + 1) * (i + 1));
    switch (op) {
      case DOp::SUM:
      case DOp::AVG: acc = static_cast<Acc>(static_cast<T>(acc + v)); break;
      case DOp::PRODUCT: acc = static_cast<Acc>(static_cast<T>(acc * v)); break;
      case DOp::MIN: acc = std::min(acc, v); break;
      case DOp::MAX: acc = std::max(acc, v); break;
    }
  }
  if (op == DOp::AVG) acc = static_cast<Acc>(static_cast<T>(acc / n));
  return static_cast<double>(acc);
}

template <typename T>
void check_reductions() {
  const int r = dist::get_rank(), n = dist::get_world_size();
  const char* dtype = dtype_name(dtype_of<T>::value);
  auto mine = [&] {
    std::vector<T> v;
    for (int i = 0; i < 4; ++i) v.push_back(static_cast<T>(static_cast<float>((r + 1) * (i + 1))));
    return make<T>(v);
  };
  constexpr bool k16 = std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>;
  for (DOp op : {DOp::SUM, DOp::PRODUCT, DOp::MIN, DOp::MAX, DOp::AVG}) {
    std::vector<double> want;
    for (int i = 0; i < 4; ++i) want.push_back(expected<std::conditional_t<k16, float, T>>(op, n, i));
    Tensor t = mine();
    dist::all_reduce(t, op);
    EXPECT(as_double<T>(t) == want, "all_reduce {} {}: got {} want {}", dtype, dist::reduce_op_name(op),
           as_double<T>(t), want);
    Tensor red = mine();
    dist::reduce(red, n - 1, op);
    if (r == n - 1) {
      EXPECT(as_double<T>(red) == want, "reduce {} {}: got {} want {}", dtype, dist::reduce_op_name(op),
             as_double<T>(red), want);
    }
    if constexpr (!k16) {
      // reduce_scatter: inputs[j] holds (r+1)(j+1); rank j receives element j's reduction.
      std::vector<Tensor> inputs;
      for (int j = 0; j < n; ++j) inputs.push_back(make<T>({static_cast<T>((r + 1) * (j + 1))}));
      Tensor out = make<T>({0});
      dist::reduce_scatter(out, inputs, op);
      double got = static_cast<double>(values<T>(out)[0]);
      EXPECT(got == expected<T>(op, n, r), "reduce_scatter {} {}: got {} want {}", dtype, dist::reduce_op_name(op), got,
             expected<T>(op, n, r));
    }
  }
}

template <typename T>
void check_data_movement() {
  const int r = dist::get_rank(), n = dist::get_world_size();
  const char* dtype = dtype_name(dtype_of<T>::value);
  for (int root = 0; root < n; ++root) {
    Tensor b = make<T>({static_cast<T>(r == root ? 7 * root + 1 : 0), static_cast<T>(r)});
    dist::broadcast(b, root);
    EXPECT((values<T>(b) == std::vector<T>{static_cast<T>(7 * root + 1), static_cast<T>(root)}), "broadcast {} root {}",
           dtype, root);
  }
  std::vector<Tensor> gathered;
  for (int j = 0; j < n; ++j) gathered.push_back(make<T>({0, 0, 0}));
  dist::all_gather(gathered, make<T>({static_cast<T>(r), static_cast<T>(2 * r), static_cast<T>(3 * r)}));
  for (int j = 0; j < n; ++j) {
    EXPECT((values<T>(gathered[j]) == std::vector<T>{static_cast<T>(j), static_cast<T>(2 * j), static_cast<T>(3 * j)}),
           "all_gather {} slot {}", dtype, j);
  }
  std::vector<Tensor> at_root;
  for (int j = 0; j < n; ++j) at_root.push_back(make<T>({0}));
  dist::gather(make<T>({static_cast<T>(10 + r)}), at_root, 1 % n);
  if (r == 1 % n) {
    for (int j = 0; j < n; ++j)
      EXPECT(values<T>(at_root[j])[0] == static_cast<T>(10 + j), "gather {} slot {}", dtype, j);
  }
  std::vector<Tensor> pieces;
  for (int j = 0; j < n; ++j) pieces.push_back(make<T>({static_cast<T>(20 + j), static_cast<T>(j)}));
  Tensor piece = make<T>({0, 0});
  dist::scatter(piece, r == 0 ? pieces : std::vector<Tensor>(), 0);
  EXPECT((values<T>(piece) == std::vector<T>{static_cast<T>(20 + r), static_cast<T>(r)}), "scatter {}", dtype);
  // all_to_all: rank r sends j+1 copies of 10r+j to rank j.
  std::vector<Tensor> sends, recvs;
  for (int j = 0; j < n; ++j) sends.push_back(make<T>(std::vector<T>(j + 1, static_cast<T>(10 * r + j))));
  for (int j = 0; j < n; ++j) recvs.push_back(make<T>(std::vector<T>(r + 1, 0)));
  dist::all_to_all(recvs, sends);
  for (int j = 0; j < n; ++j) {
    EXPECT(values<T>(recvs[j]) == std::vector<T>(r + 1, static_cast<T>(10 * j + r)), "all_to_all {} from {}", dtype, j);
  }
}

void collectives() {
  check_reductions<float>();
  check_reductions<double>();
  check_reductions<int64_t>();
  check_reductions<int32_t>();
  check_reductions<uint8_t>();
  check_reductions<BFloat16>();
  check_reductions<Half>();
  check_data_movement<float>();
  check_data_movement<double>();
  check_data_movement<int64_t>();
  check_data_movement<int32_t>();
  check_data_movement<uint8_t>();
  dist::barrier();
  // send/recv around the ring.
  const int r = dist::get_rank(), n = dist::get_world_size();
  if (n > 1) {
    Tensor in = make<int64_t>({-1});
    if (r % 2 == 0) {
      dist::send(make<int64_t>({100 + r}), (r + 1) % n);
      dist::recv(in, (r + n - 1) % n);
    } else {
      dist::recv(in, (r + n - 1) % n);
      dist::send(make<int64_t>({100 + r}), (r + 1) % n);
    }
    EXPECT(values<int64_t>(in)[0] == 100 + (r + n - 1) % n, "ring recv got {}", values<int64_t>(in)[0]);
  }
}

void async_ops() {
  const int r = dist::get_rank(), n = dist::get_world_size();
  std::vector<Tensor> tensors;
  std::vector<std::shared_ptr<dist::Work>> works;
  for (int k = 0; k < 50; ++k) {
    tensors.push_back(make<float>(std::vector<float>(10000, float(k * (r + 1)))));
    works.push_back(dist::all_reduce(tensors.back(), DOp::SUM, nullptr, /*async_op=*/true));
  }
  int completed_at_once = 0;
  for (auto& w : works) completed_at_once += w->is_completed() ? 1 : 0;
  for (int k = 49; k >= 0; --k) {
    works[k]->wait();
    EXPECT(works[k]->is_completed() && works[k]->is_success(), "work {} not complete after wait", k);
    EXPECT(values<float>(tensors[k])[9999] == float(k * n * (n + 1) / 2), "async all_reduce {}", k);
  }
  say(fmt::format("completed before the first wait: {} of 50", completed_at_once));
  // Everyone sends to the next rank first, then receives: isend must not block.
  Tensor in = make<int32_t>({0, 0});
  auto s = dist::isend(make<int32_t>({r, 2 * r}), (r + 1) % n, nullptr, 3);
  auto v = dist::irecv(in, (r + n - 1) % n, nullptr, 3);
  v->wait();
  s->wait();
  int prev = (r + n - 1) % n;
  EXPECT((values<int32_t>(in) == std::vector<int32_t>{prev, 2 * prev}), "isend/irecv ring");
}

void subgroups() {
  const int r = dist::get_rank(), n = dist::get_world_size();
  std::vector<int> evens, odds;
  for (int j = 0; j < n; ++j) (j % 2 ? odds : evens).push_back(j);
  auto even_group = dist::new_group(evens);
  auto odd_group = dist::new_group(odds);
  auto mine = r % 2 ? odd_group : even_group;
  EXPECT((r % 2 ? even_group : odd_group) == nullptr, "a rank got a handle to a group it is not in");
  EXPECT(mine != nullptr, "no handle to my own group");
  const auto& members = r % 2 ? odds : evens;
  EXPECT(mine->size() == static_cast<int>(members.size()), "group size {}", mine->size());
  EXPECT(dist::get_group_rank(mine, r) == r / 2 && dist::get_global_rank(mine, r / 2) == r, "rank translation");
  Tensor t = make<int64_t>({r});
  dist::all_reduce(t, DOp::SUM, mine);
  int64_t want = 0;
  for (int j : members) want += j;
  EXPECT(values<int64_t>(t)[0] == want, "group all_reduce got {} want {}", values<int64_t>(t)[0], want);
  // src is a global rank: the group's last member.
  Tensor b = make<int64_t>({r == members.back() ? 1000 + r : 0});
  dist::broadcast(b, members.back(), mine);
  EXPECT(values<int64_t>(b)[0] == 1000 + members.back(), "group broadcast");
  try {
    dist::broadcast(b, members.front() == 0 ? 1 % n : 0, mine);
    EXPECT(n == 1, "a src outside the group was accepted");
  } catch (const Error& e) {
    EXPECT(std::string(e.what()).find("is not in the group") != std::string::npos, "{}", e.what());
  }
  // The world still works after the subgroups, interleaved with them.
  Tensor w = make<int64_t>({1});
  dist::all_reduce(w);
  EXPECT(values<int64_t>(w)[0] == n, "world all_reduce after subgroups");
  dist::barrier(mine);
}

// Rank 0 holds 1, the others half a unit in the last place (ulp) of 1 each (bfloat16: 2^-8;
// float16: 2^-11): the float32 sum 1 + 1.5 ulp lies halfway between 1 + 1 ulp and 1 + 2 ulp and
// rounds (to even) to the second; adding them one at a time in 16 bits would stay at 1 (each
// partial sum 1 + 0.5 ulp rounds back down to even).
void rounded_once() {
  const int r = dist::get_rank(), n = dist::get_world_size();
  EXPECT(n == 4, "rounded_once needs 4 ranks, not {}", n);
  for (DType dtype : {kBFloat16, kFloat16}) {
    const float half_ulp = dtype == kBFloat16 ? 0.00390625f : 0.00048828125f;
    const float value = r == 0 ? 1.0f : half_ulp;
    const double expected = 1.0 + 4 * half_ulp;
    Tensor t = native::to(make<float>({value, value}), kCPU, dtype);
    dist::all_reduce(t);
    EXPECT(as_double_any(t) == (std::vector<double>{expected, expected}), "{} all_reduce", dtype);
    Tensor reduced = native::to(make<float>({value}), kCPU, dtype);
    dist::reduce(reduced, 3);
    if (r == 3) EXPECT(as_double_any(reduced) == std::vector<double>{expected}, "{} reduce", dtype);
    std::vector<Tensor> pieces;
    for (int j = 0; j < n; ++j) pieces.push_back(native::to(make<float>({value}), kCPU, dtype));
    Tensor out = native::to(make<float>({0.f}), kCPU, dtype);
    dist::reduce_scatter(out, pieces);
    EXPECT(as_double_any(out) == std::vector<double>{expected}, "{} reduce_scatter", dtype);
  }
}

void gloo_beside() {
  const int r = dist::get_rank(), n = dist::get_world_size();
  std::vector<int> all;
  for (int j = 0; j < n; ++j) all.push_back(j);
  auto gloo = dist::new_group(all, {}, "gloo");
  EXPECT(gloo->backend_name() == "gloo", "the subgroup's backend is {}", gloo->backend_name());
  for (int round = 0; round < 3; ++round) {
    Tensor a = make<int64_t>({r + round}), b = make<int64_t>({2 * r});
    dist::all_reduce(a, DOp::SUM, gloo);
    dist::all_reduce(b);
    EXPECT(values<int64_t>(a)[0] == n * (n - 1) / 2 + n * round, "gloo subgroup all_reduce");
    EXPECT(values<int64_t>(b)[0] == n * (n - 1), "default group all_reduce");
  }
}

void missing_member() {
  const int r = dist::get_rank(), n = dist::get_world_size();
  std::vector<int> all;
  for (int j = 0; j < n; ++j) all.push_back(j);
  if (r == 1) {
    say("not creating the group");
    std::this_thread::sleep_for(30s);  // the starter stops us once another rank failed
    return;
  }
  dist::ProcessGroupOptions options;
  options.rendezvous_timeout = 2s;
  dist::new_group(all, options);
  EXPECT(false, "the group was created without rank 1");
}

void store_ops() {
  const int r = dist::get_rank(), n = dist::get_world_size();
  auto store = dist::default_store();
  store->set(fmt::format("hello/{}", r), fmt::format("from {}", r));
  for (int j = 0; j < n; ++j) {
    EXPECT(store->get_string(fmt::format("hello/{}", j)) == fmt::format("from {}", j), "get hello/{}", j);
  }
  for (int k = 0; k < 25; ++k) store->add("counter", 2);
  dist::Bytes claim = store->compare_set("leader", dist::Bytes(), dist::Bytes{static_cast<uint8_t>('0' + r)});
  store->set(fmt::format("leader_seen/{}", r), std::string(claim.begin(), claim.end()));
  std::vector<std::string> all_done;
  for (int j = 0; j < n; ++j) all_done.push_back(fmt::format("leader_seen/{}", j));
  store->wait(all_done);
  // Every rank saw the one winner.
  std::string winner = store->get_string("leader");
  for (int j = 0; j < n; ++j) EXPECT(store->get_string(fmt::format("leader_seen/{}", j)) == winner, "compare_set race");
  store->add("counted", 1);
  while (store->add("counted", 0) < n) std::this_thread::sleep_for(1ms);
  EXPECT(store->add("counter", 0) == 50 * n, "counter {}", store->add("counter", 0));
  try {
    store->wait({fmt::format("never/{}", r)}, 300ms);
    EXPECT(false, "wait did not time out");
  } catch (const Error& e) {
    EXPECT(std::string(e.what()).find(fmt::format("never/{}", r)) != std::string::npos, "{}", e.what());
  }
  dist::barrier();
  if (r == 0) EXPECT(store->delete_key("leader"), "delete");
  dist::barrier();
  EXPECT(!store->check({"leader"}), "deleted key still there");
}

void timeout_scenario() {
  const int r = dist::get_rank(), n = dist::get_world_size();
  Tensor t = make<float>({1.f});
  dist::all_reduce(t);  // #0: everyone
  if (r == n - 1) {
    say("skipping all_reduce #1");
    std::this_thread::sleep_for(30s);  // the launcher stops us once another rank failed
    return;
  }
  dist::all_reduce(t);  // #1: throws; left uncaught it terminates this process
}

void desync_scenario() {
  const int r = dist::get_rank();
  Tensor t = make<float>(std::vector<float>(r == 1 ? 5 : 4, 1.f));
  dist::all_reduce(t);
}

// Returns the exit code: 3 when wait() failed, as it must.
int mismatch_scenario() {
  const int r = dist::get_rank();
  Tensor t = make<float>(std::vector<float>(r == 1 ? 5 : 4, 1.f));
  try {
    dist::all_reduce(t);
  } catch (const Error& e) {
    say(std::string("mismatch error: ") + e.what());
    dist::destroy_process_group();
    return 3;
  }
  say("mismatch: all_reduce succeeded");
  return 0;
}

void peer_exit_scenario() {
  const int r = dist::get_rank();
  Tensor t = make<float>(std::vector<float>(1000, 1.f));
  dist::all_reduce(t);
  dist::all_reduce(t);
  if (r == 1) {
    say("leaving without a word");
    std::fflush(stdout);
    ::_exit(0);  // status 0: the launcher keeps the others running
  }
  dist::all_reduce(t);
}

}  // namespace

int main(int argc, char** argv) {
  std::string scenario = argc > 1 ? argv[1] : "";
  dist::ProcessGroupOptions options;
  options.timeout = scenario == "timeout" || scenario == "peer_exit" ? 2s : scenario == "mismatch" ? 3s : 20s;
  if (scenario == "mismatch") options.check_desync = argc > 2 && std::string(argv[2]) == "on";
  std::string init_method = scenario == "init" && argc > 2 ? argv[2] : "env://";
  const char* backend_variable = std::getenv("BRISK_TEST_BACKEND");
  const std::string backend = backend_variable != nullptr ? backend_variable : "gloo";
  if (init_method == "tcp") {
    // tcp:// with the rank and world size passed explicitly rather than read by init.
    init_method = fmt::format("tcp://{}:{}", std::getenv("MASTER_ADDR"), std::getenv("MASTER_PORT"));
    dist::init_process_group(backend, init_method, std::atoi(std::getenv("WORLD_SIZE")), std::atoi(std::getenv("RANK")),
                             options);
  } else {
    dist::init_process_group(backend, init_method, -1, -1, options);
  }
  if (scenario == "collectives" || scenario == "init") collectives();
  else if (scenario == "async") async_ops();
  else if (scenario == "subgroups") subgroups();
  else if (scenario == "store") store_ops();
  else if (scenario == "timeout") timeout_scenario();
  else if (scenario == "desync") desync_scenario();
  else if (scenario == "mismatch") return mismatch_scenario();
  else if (scenario == "peer_exit") peer_exit_scenario();
  else if (scenario == "rounded_once") rounded_once();
  else if (scenario == "gloo_beside") gloo_beside();
  else if (scenario == "missing_member") missing_member();
  else BRISK_FAIL("collectives_worker: unknown scenario '{}'", scenario);
  dist::destroy_process_group();
  say(scenario + " ok");
  return 0;
}
