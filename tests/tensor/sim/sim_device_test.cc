// The simulated device (//tensor/sim): every native op computes on sim:0 exactly what it
// computes on the CPU (the same kernels, so bit for bit); copies round trip; ops refuse
// operands from another device, naming both; and host code that reads sim memory through
// data_ptr() crashes, as a host read of CUDA memory does.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <csignal>
#include <cstring>
#include <functional>
#include <string>

#include "tensor/backend.h"
#include "tensor/generator.h"
#include "tensor/native/ops.h"
#include "tensor/sim/sim_backend.h"
#include "tensor/sim/sim_memory.h"

namespace brisk {
namespace {

const Device sim0 = sim_device(0);
const Device sim1 = sim_device(1);

// float64 values in [-2, 2) that are not all simple (the reduction order shows in the bits).
Tensor random_host(const Shape& shape, uint64_t seed, DType dtype = kFloat64) {
  Generator gen(seed);
  Tensor t = native::empty(shape, kFloat64);
  native::uniform_(t, -2.0, 2.0, &gen);
  return native::to(t, kCPU, dtype);
}

// Whether two tensors hold the same bytes (compared on the host) with one shape and dtype.
bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes() || a.dtype() != b.dtype()) return false;
  Tensor x = native::contiguous(native::to(a, kCPU, a.dtype()));
  Tensor y = native::contiguous(native::to(b, kCPU, b.dtype()));
  return std::memcmp(x.raw_data(), y.raw_data(), x.nbytes()) == 0;
}

// Runs `op` on the CPU and on sim:0 with the same host inputs (each moved to the device)
// and checks the result lives on that device and matches the CPU's bit for bit.
using Op = std::function<Tensor(const std::function<Tensor(const Tensor&)>& on_device)>;
void require_same_on_sim(const std::string& name, const Op& op) {
  INFO(name);
  Tensor on_cpu = op([](const Tensor& t) { return t; });
  Tensor on_sim = op([](const Tensor& t) { return native::to(t, sim0, t.dtype()); });
  REQUIRE(on_cpu.device() == kCPU);
  REQUIRE(on_sim.device() == sim0);
  REQUIRE(same_bits(on_cpu, on_sim));
}

TEST_CASE("elementwise ops on sim equal the CPU's bit for bit") {
  Tensor a = random_host({4, 5}, 1), b = random_host({4, 5}, 2), row = random_host({5}, 3);
  Tensor mask = native::binary(BinaryOp::Gt, a, b);
  require_same_on_sim("exp", [&](auto on) { return native::unary(UnaryOp::Exp, on(a)); });
  require_same_on_sim("tanh", [&](auto on) { return native::unary(UnaryOp::Tanh, on(a)); });
  require_same_on_sim("add broadcast", [&](auto on) {
    return native::binary(BinaryOp::Add, on(a), on(row), {1.0});  // alpha 1
  });
  require_same_on_sim("mul scalar", [&](auto on) { return native::binary(BinaryOp::Mul, on(a), Scalar(1.5)); });
  require_same_on_sim("div transposed", [&](auto on) {
    return native::binary(BinaryOp::Div, native::transpose(on(a), 0, 1), native::transpose(on(b), 0, 1));
  });
  require_same_on_sim("pow number", [&](auto on) { return native::binary(BinaryOp::Pow, on(a), Scalar(3)); });
  require_same_on_sim("where", [&](auto on) { return native::where(on(mask), on(a), on(b)); });
  require_same_on_sim("masked_fill", [&](auto on) { return native::masked_fill(on(a), on(mask), 7.0); });
  require_same_on_sim("addcdiv", [&](auto on) {
    return native::ternary(TernaryOp::Addcdiv, on(a), on(b), native::binary(BinaryOp::Add, on(b), Scalar(5)), {0.5});
  });
  require_same_on_sim("in-place add_ with a cast", [&](auto on) {
    Tensor x = native::to(on(a), on(a).device(), kFloat32);
    native::binary_(BinaryOp::Add, x, on(b), {1.0});  // alpha 1
    return x;
  });
  require_same_on_sim("compare", [&](auto on) { return native::binary(BinaryOp::Lt, on(a), on(b)); });
  require_same_on_sim("fill_ with a large int64", [&](auto on) {
    Tensor x = native::empty({3}, TensorOptions(kInt64).device(on(a).device()));
    return native::fill_(x, (int64_t{1} << 60) + 1);
  });
  require_same_on_sim("dtype conversion", [&](auto on) { return native::to(on(a), on(a).device(), kBFloat16); });
}

TEST_CASE("reductions, softmax and matmul on sim equal the CPU's bit for bit") {
  Tensor a = random_host({6, 7, 5}, 4, kFloat32), m = random_host({5, 3}, 5, kFloat32);
  require_same_on_sim("sum all", [&](auto on) { return native::reduce(ReduceOp::Sum, on(a), {}, false); });
  require_same_on_sim("mean dims", [&](auto on) { return native::reduce(ReduceOp::Mean, on(a), {0, 2}, true); });
  require_same_on_sim("max values", [&](auto on) { return native::max_with_indices(on(a), 1, false).first; });
  require_same_on_sim("max indices", [&](auto on) { return native::max_with_indices(on(a), 1, false).second; });
  require_same_on_sim("argmin", [&](auto on) { return native::argmin(on(a), 2, false); });
  require_same_on_sim("log_softmax", [&](auto on) { return native::softmax(on(a), 1, true); });
  require_same_on_sim("softmax_backward", [&](auto on) {
    Tensor y = native::softmax(on(a), -1, false);
    return native::softmax_backward(on(a), y, -1, false);
  });
  require_same_on_sim("matmul", [&](auto on) { return native::matmul(on(a), on(m)); });
  require_same_on_sim("mm transposed", [&](auto on) { return native::mm(native::transpose(on(m), 0, 1), on(m)); });
  require_same_on_sim("cat", [&](auto on) { return native::cat({on(a), on(a)}, 1); });
}

TEST_CASE("indexing on sim equals the CPU's bit for bit") {
  Tensor a = random_host({5, 4}, 6);
  Tensor index = native::from_vector<int64_t>({4, 0, 2, 2}, {4}, kInt64);
  Tensor gather_index = native::from_vector<int64_t>({0, 3, 1, 1, 2, 0, 3, 3, 0, 1}, {5, 2}, kInt64);
  require_same_on_sim("index_select", [&](auto on) { return native::index_select(on(a), 0, on(index)); });
  require_same_on_sim("gather", [&](auto on) { return native::gather(on(a), 1, on(gather_index)); });
  require_same_on_sim("scatter_add", [&](auto on) {
    return native::scatter_add(native::zeros({5, 4}, TensorOptions(kFloat64).device(on(a).device())), 1,
                               on(gather_index), native::narrow(on(a), 1, 0, 2));
  });
  require_same_on_sim("one_hot", [&](auto on) { return native::one_hot(on(index), 6); });
}

TEST_CASE("convolution, pooling and the fused optimizer steps on sim equal the CPU's bit for bit") {
  Tensor x = random_host({2, 3, 6, 6}, 7, kFloat32), w = random_host({4, 3, 3, 3}, 8, kFloat32);
  Tensor bias = random_host({4}, 9, kFloat32);
  Conv2dParams conv;
  conv.padding = {1, 1};
  require_same_on_sim("conv2d", [&](auto on) { return native::conv2d(on(x), on(w), on(bias), conv); });
  for (int i = 0; i < 3; ++i) {
    require_same_on_sim("conv2d_backward " + std::to_string(i), [&](auto on) {
      Tensor y = native::conv2d(on(x), on(w), on(bias), conv);
      return native::conv2d_backward(native::unary(UnaryOp::Sin, y), on(x), on(w), conv, {true, true, true})[i];
    });
  }
  Pool2dParams pool;
  pool.kernel = {2, 2};
  pool.stride = {2, 2};
  require_same_on_sim("max_pool2d backward", [&](auto on) {
    auto [y, indices] = native::max_pool2d_with_indices(on(x), pool);
    return native::max_pool2d_backward(y, on(x), indices);
  });
  require_same_on_sim("avg_pool2d backward", [&](auto on) {
    return native::avg_pool2d_backward(native::avg_pool2d(on(x), pool), on(x), pool);
  });
  require_same_on_sim("adaptive_avg_pool2d backward", [&](auto on) {
    return native::adaptive_avg_pool2d_backward(native::adaptive_avg_pool2d(on(x), {4, 5}), on(x));
  });

  Tensor grad = random_host({3, 4}, 10, kFloat32);
  require_same_on_sim("sgd_step", [&](auto on) {
    Tensor p = native::clone(on(native::ones({3, 4}))), buf = native::clone(on(grad));
    SgdStepParams params;
    params.lr = 0.1;
    params.momentum = 0.9;
    params.nesterov = true;
    native::sgd_step_(p, on(grad), buf, params);
    return native::cat({p, buf}, 0);
  });
  require_same_on_sim("adam_step", [&](auto on) {
    Tensor p = native::clone(on(native::ones({3, 4})));
    Tensor m = native::zeros({3, 4}, p.device()), v = native::zeros({3, 4}, p.device());
    Tensor v_max = native::zeros({3, 4}, p.device());
    AdamStepParams params;
    params.lr = 0.01;
    params.amsgrad = true;
    params.step_size = 0.01 / (1 - 0.9);
    params.bias_correction2_sqrt = std::sqrt(1 - 0.999);
    native::adam_step_(p, on(grad), m, v, v_max, params);
    return native::cat({p, m, v, v_max}, 0);
  });
}

TEST_CASE("random ops on sim draw the CPU's numbers for the same seed") {
  for (RandomOp op : {RandomOp::Uniform, RandomOp::Normal, RandomOp::Bernoulli}) {
    require_same_on_sim(std::string("random op ") + op_name(op), [&](auto on) {
      Device device = on(native::zeros({1})).device();
      Generator gen(1234);
      // Strided, so the device fills a temporary and copies it in.
      Tensor t = native::transpose(native::empty({7, 3}, TensorOptions(kFloat32).device(device)), 0, 1);
      if (op == RandomOp::Uniform) native::uniform_(t, -1, 3, &gen);
      if (op == RandomOp::Normal) native::normal_(t, 0.5, 2, &gen);
      if (op == RandomOp::Bernoulli) native::bernoulli_(t, 0.3, &gen);
      return t;
    });
  }
  require_same_on_sim("bernoulli of a tensor", [&](auto on) {
    Generator gen(99);
    return native::bernoulli(on(native::full({10}, 0.5, kFloat64)), &gen);
  });
}

TEST_CASE("copies between the host and sim devices round trip") {
  Tensor host = random_host({3, 4}, 11);
  Tensor on_sim0 = native::to(host, sim0, kFloat64);
  Tensor on_sim1 = native::to(on_sim0, sim1, kFloat64);
  REQUIRE(on_sim1.device() == sim1);
  REQUIRE(same_bits(native::to(on_sim1, kCPU, kFloat64), host));
  // Strided source and destination with a dtype conversion, both directions.
  Tensor dst = native::zeros({4, 3}, TensorOptions(kFloat32).device(sim0));
  native::copy_(dst, native::transpose(host, 0, 1));
  Tensor back = native::zeros({3, 4}, kFloat64);
  native::copy_(back, native::transpose(dst, 0, 1));
  REQUIRE(same_bits(back, native::to(native::to(host, kCPU, kFloat32), kCPU, kFloat64)));
  REQUIRE(native::clone(on_sim1).device() == sim1);
}

TEST_CASE("item, to_vector and printing read sim tensors through a copy") {
  Tensor t = native::from_vector<double>({1.5, -2.0, 3.25}, {3}, TensorOptions(kFloat64).device(sim0));
  REQUIRE(t.device() == sim0);
  REQUIRE(t.to_vector<double>() == std::vector<double>{1.5, -2.0, 3.25});
  REQUIRE(native::select(t, 0, 2).item<double>() == 3.25);
  REQUIRE(native::reduce(ReduceOp::Sum, t, {}, false).item<float>() == 2.75f);
  REQUIRE(native::to_string(t) == "tensor([ 1.5000, -2.0000,  3.2500], device='sim:0', dtype=torch.float64)");
  REQUIRE(native::equal(t, native::clone(t)));
  REQUIRE(native::allclose(t, native::clone(t)));
}

TEST_CASE("the simulated device counts its copies, so host synchronizations can be counted") {
  Tensor t = native::ones({3}, sim0);
  sim::reset_copy_counts();
  Tensor total = native::reduce(ReduceOp::Sum, t, {}, false);
  REQUIRE(sim::copy_counts().device_to_host == 0);
  REQUIRE(total.item<float>() == 3.0f);
  REQUIRE(sim::copy_counts().device_to_host == 1);
  native::to(t, sim1, kFloat32);
  native::to(native::ones({3}), sim0, kFloat32);
  native::clone(t);  // a copy within sim:0, not a transfer
  sim::CopyCounts counts = sim::copy_counts();
  REQUIRE(counts.device_to_host == 1);
  REQUIRE(counts.device_to_device == 1);
  REQUIRE(counts.host_to_device == 1);
}

TEST_CASE("ops with a number make it on the device, without a copy from the host") {
  // On CUDA a copy from pageable host memory synchronizes the host with the stream: one per
  // `x * 2` would stall every step. Numbers a double holds exactly are filled on the device.
  Tensor x = native::from_vector<float>({1, 2, 3}, {3}, TensorOptions(kFloat32).device(sim0));
  Tensor i = native::from_vector<int64_t>({1, 2, 3}, {3}, TensorOptions(kInt64).device(sim0));
  Tensor u = native::from_vector<uint8_t>({1, 2, 3}, {3}, TensorOptions(kUInt8).device(sim0));
  sim::reset_copy_counts();
  Tensor a = native::binary(BinaryOp::Mul, x, Scalar(2.5));
  Tensor b = native::binary(BinaryOp::Sub, Scalar(1), i, {1.0});  // alpha 1
  Tensor c = native::binary_(BinaryOp::Add, i, Scalar(int64_t{1} << 40), {1.0});
  Tensor d = native::masked_fill(x, native::binary(BinaryOp::Gt, x, Scalar(1.5)), -1.0);
  REQUIRE(sim::copy_counts().host_to_device == 0);
  CHECK(a.to_vector<float>() == std::vector<float>{2.5, 5, 7.5});
  CHECK(b.to_vector<int64_t>() == std::vector<int64_t>{0, -1, -2});
  CHECK(c.to_vector<int64_t>() ==
        std::vector<int64_t>{(int64_t{1} << 40) + 1, (int64_t{1} << 40) + 2, (int64_t{1} << 40) + 3});
  CHECK(d.to_vector<float>() == std::vector<float>{1, -1, -1});
  // A number the kernel must wrap (uint8 + 300 is uint8 + 44, as in PyTorch), or an int64
  // beyond 2^53, still goes through the host, exactly.
  require_same_on_sim("uint8 + 300", [&](auto on) {
    return native::binary(BinaryOp::Add, on(native::to(u, kCPU, kUInt8)), Scalar(300), {1.0});
  });
  require_same_on_sim("int64 + 2^60 + 1", [&](auto on) {
    return native::binary(BinaryOp::Add, on(native::to(i, kCPU, kInt64)), Scalar((int64_t{1} << 60) + 1), {1.0});
  });
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST_CASE("ops refuse operands from another device, naming both devices") {
  Tensor s0 = native::ones({2, 2}, sim0), s1 = native::ones({2, 2}, sim1), host = native::ones({2, 2});
  using Catch::Matchers::Contains;
  std::string e = error_of([&] { native::binary(BinaryOp::Add, s0, host); });
  CHECK_THAT(e, Contains("add") && Contains("sim:0") && Contains("cpu"));
  e = error_of([&] { native::binary(BinaryOp::Mul, s0, s1); });
  CHECK_THAT(e, Contains("mul") && Contains("sim:0") && Contains("sim:1"));
  e = error_of([&] { native::matmul(host, s0); });
  CHECK_THAT(e, Contains("matmul") && Contains("sim:0") && Contains("cpu"));
  e = error_of([&] { native::where(native::binary(BinaryOp::Gt, s0, 0), s0, s1); });
  CHECK_THAT(e, Contains("where") && Contains("sim:0") && Contains("sim:1"));
  e = error_of([&] { native::index_select(s0, 0, native::zeros({1}, kInt64)); });
  CHECK_THAT(e, Contains("index_select") && Contains("sim:0") && Contains("cpu"));
  e = error_of([&] { native::cat({s0, s1}, 0); });
  CHECK_THAT(e, Contains("cat") && Contains("sim:0") && Contains("sim:1"));
  Tensor p = native::ones({2, 2}, sim0);
  e = error_of([&] { native::sgd_step_(p, host, Tensor(), SgdStepParams{}); });
  CHECK_THAT(e, Contains("sgd_step") && Contains("sim:0") && Contains("cpu"));
  Tensor image = native::ones({1, 1, 2, 2}, sim0);
  Pool2dParams pool;
  pool.kernel = {2, 2};
  Tensor pooled = native::max_pool2d_with_indices(image, pool).first;
  e = error_of([&] { native::max_pool2d_backward(pooled, image, native::zeros({1, 1, 1, 1}, kInt64)); });
  CHECK_THAT(e, Contains("max_pool2d_backward") && Contains("sim:0") && Contains("cpu"));
  Tensor in_place = native::ones({2, 2}, sim0);
  e = error_of([&] { native::binary_(BinaryOp::Add, in_place, s1); });
  CHECK_THAT(e, Contains("add") && Contains("sim:0") && Contains("sim:1"));
}

TEST_CASE("a 0-dim CPU tensor joins sim operands, as it joins CUDA ones") {
  Tensor s = native::from_vector<double>({1, 2}, {2}, TensorOptions(kFloat64).device(sim0));
  Tensor r = native::binary(BinaryOp::Mul, s, native::scalar_tensor(3.0, kFloat64));
  REQUIRE(r.device() == sim0);
  REQUIRE(r.to_vector<double>() == std::vector<double>{3, 6});
}

TEST_CASE("an in-place op on a 0-dim CPU tensor refuses operands on a device") {
  // The CPU number may join device operands, but it cannot be the output: its memory is the
  // host's. Before the native check, the device's kernel got a host output.
  Tensor s = native::ones({}, sim0), mask = native::ones({}, TensorOptions(kBool).device(sim0));
  using Catch::Matchers::Contains;
  for (const std::string op : {"add", "masked_fill_", "addcmul"}) {
    INFO(op);
    Tensor host = native::scalar_tensor(1.0, kFloat32);
    std::string e = error_of([&] {
      if (op == "add") native::binary_(BinaryOp::Add, host, s);
      if (op == "masked_fill_") native::masked_fill_(host, mask, 2);
      if (op == "addcmul") native::ternary_(TernaryOp::Addcmul, host, s, s);
    });
    CHECK_THAT(e, Contains(op) && Contains("the output") && Contains("cpu") && Contains("sim:0"));
  }
}

TEST_CASE("the sim backend itself refuses tensors of another device") {
  // Defense in depth: a native op that forgot a device check still cannot make the
  // simulated device's kernels read host or foreign memory.
  Backend& sim = backend_for(sim0);
  Tensor out = native::empty({2}, sim0);
  using Catch::Matchers::Contains;
  CHECK_THAT(error_of([&] { sim.unary(UnaryOp::Neg, out, native::ones({2}), {}); }),
             Contains("neg") && Contains("sim:0") && Contains("cpu"));
  CHECK_THAT(error_of([&] { sim.binary(BinaryOp::Add, out, out, native::ones({2}, sim1), {}); }),
             Contains("add") && Contains("sim:0") && Contains("sim:1"));
  CHECK_THAT(error_of([&] { sim.unary(UnaryOp::Neg, native::empty({2}), native::ones({2}), {}); }),
             Contains("neg") && Contains("cpu"));
}

TEST_CASE("copies between a sim and a CUDA device are refused before reaching either backend") {
  Tensor s = native::ones({2}, sim0);
  // A tensor labelled cuda:0 over no memory: the check must come before any backend runs.
  auto storage = std::make_shared<Storage>(DataPtr(nullptr, [](void*) {}), 2 * sizeof(float), cuda_device(0));
  Tensor c(std::make_shared<TensorImpl>(storage, Shape{2}, Shape{1}, 0, kFloat32));
  using Catch::Matchers::Contains;
  CHECK_THAT(error_of([&] { native::copy_(c, s); }), Contains("copy_") && Contains("sim:0") && Contains("cuda:0"));
  CHECK_THAT(error_of([&] { native::copy_(s, c); }), Contains("copy_") && Contains("sim:0") && Contains("cuda:0"));
}

TEST_CASE("sim memory is tagged: its data pointer is not a host address") {
  Tensor t = native::ones({4}, sim0);
  REQUIRE(sim::is_device_pointer(t.raw_data()));
  REQUIRE(!sim::is_device_pointer(sim::host_alias(t).raw_data()));
  REQUIRE(sim::host_alias(t).to_vector<float>() == std::vector<float>{1, 1, 1, 1});
}

TEST_CASE("host code that reads a sim tensor through data_ptr crashes") {
  Tensor t = native::ones({4}, sim0);
  const float* device_pointer = t.data_ptr<float>();
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // Catch2's handlers would report the fault and exit normally; the child dies of it.
    std::signal(SIGSEGV, SIG_DFL);
    std::signal(SIGBUS, SIG_DFL);
    // The read that defect 1 of issue 10 makes on CUDA memory: it must fault, not return 1.
    float value = *static_cast<const volatile float*>(device_pointer);
    _exit(value == 1.0f ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  INFO("child status " << status);
  REQUIRE(WIFSIGNALED(status));
  CHECK((WTERMSIG(status) == SIGSEGV || WTERMSIG(status) == SIGBUS));
}

}  // namespace
}  // namespace brisk
