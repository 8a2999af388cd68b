// Registered ops: declared here, their kernels registered in ops_kernels.cc; calls, the
// checks of every call, the errors of registration and lookup, the profiler's events.
#include "library/library.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "profiler/profiler.h"
#include "tests/library/ops_kernels.h"

BRISK_LIBRARY(testops, m) {
  m.def("axpy(Tensor x, Tensor y, float a) -> Tensor");
  m.def("split_sign(Tensor x) -> (Tensor, Tensor)");
  m.def("masked_scale(Tensor x, Tensor mask, float s) -> Tensor");
  m.def("scale_all(Tensor[] xs, float s) -> Tensor[]");
  m.def("sum_dims(Tensor x, int[] dims, bool keepdim, str note, int n) -> Tensor");
  m.def("cpu_only(Tensor x) -> Tensor");
  m.def("twice(Tensor x) -> Tensor");
  m.def("axpy(Tensor x, Tensor y, float a) -> Tensor");  // the same def again is no error
}

BRISK_LIBRARY(bad_schema, m) { m.def("op(Tensor x) -> int"); }

namespace brisk::library {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::Equals;

using Unary = Tensor(const Tensor&);
using Axpy = Tensor(const Tensor&, const Tensor&, double);

TEST_CASE("registered ops run their CPU kernels, with every argument and return type") {
  Tensor x = tensor({1.0, -2.0, 3.0}), y = tensor({0.5, 0.5, 0.5});
  static const auto axpy = find_op<Axpy>("testops::axpy");
  CHECK(axpy.name() == "testops::axpy");
  CHECK(equal(axpy(x, y, 2.0), tensor({2.5, -3.5, 6.5})));
  // A lookup with other C++ spellings of the schema's types calls the same kernel.
  CHECK(equal(find_op<Tensor(Tensor, Tensor, double)>("testops::axpy")(x, y, 1.0), tensor({1.5, -1.5, 3.5})));

  using TwoTensors = std::tuple<Tensor, Tensor>;
  auto [positive, negative] = find_op<TwoTensors(const Tensor&)>("testops::split_sign")(x);
  CHECK(equal(positive, tensor({1.0, 0.0, 3.0})));
  CHECK(equal(negative, tensor({0.0, -2.0, 0.0})));

  std::vector<Tensor> scaled =
      find_op<std::vector<Tensor>(const std::vector<Tensor>&, double)>("testops::scale_all")({x, y}, 2.0);
  REQUIRE(scaled.size() == 2);
  CHECK(equal(scaled[1], tensor({1.0, 1.0, 1.0})));

  auto sum_dims = find_op<Tensor(const Tensor&, IntArrayRef, bool, const std::string&, int64_t)>("testops::sum_dims");
  Tensor m = ones({2, 3});
  CHECK(equal(sum_dims(m, {1}, true, "plus one", 2), full({2, 1}, 7.0)));
  CHECK(equal(sum_dims(m, {0, 1}, false, "", 1), full({}, 6.0)));

  CHECK(equal(find_op<Unary>("testops::twice")(x), x * 2.0));  // a lambda kernel
}

TEST_CASE("a call on a device whose type has no kernel names the op, the device and the kernels") {
  Tensor x = ones({2}).to(sim_device(0));
  auto cpu_only = find_op<Unary>("testops::cpu_only");
  CHECK_THROWS_WITH(cpu_only(x), Equals("testops::cpu_only: no kernel for device sim:0 (kernels: CPU, CUDA)"));
  CHECK(equal(cpu_only(ones({2})), ones({2})));
}

TEST_CASE("every call checks that its tensors share a device and a floating-point dtype") {
  auto axpy = find_op<Axpy>("testops::axpy");
  CHECK_THROWS_WITH(axpy(ones({2}), ones({2}).to(sim_device(0)), 1.0),
                    Equals("testops::axpy: arguments x ([2] float32 cpu) and y ([2] float32 sim:0) are on different "
                           "devices"));
  CHECK_THROWS_WITH(axpy(ones({2}), ones({2}, kFloat64), 1.0),
                    Equals("testops::axpy: floating-point arguments x ([2] float32 cpu) and y ([2] float64 cpu) "
                           "differ in dtype"));
  auto scale_all = find_op<std::vector<Tensor>(const std::vector<Tensor>&, double)>("testops::scale_all");
  CHECK_THROWS_WITH(scale_all({ones({2}), ones({3}), ones({2}, kFloat64)}, 1.0),
                    Contains("floating-point arguments xs[0] ([2] float32 cpu) and xs[2] ([2] float64 cpu)"));
  // Integer and bool tensors (indices, masks) are exempt from the dtype rule.
  auto masked_scale = find_op<Axpy>("testops::masked_scale");
  Tensor mask = tensor({1.0, 0.0}).to(kBool);
  CHECK(equal(masked_scale(ones({2}, kFloat64), mask, 3.0), tensor({3.0, 1.0}).to(kFloat64)));
}

TEST_CASE("a registered op refuses inputs that require grad in grad mode: it records no gradient") {
  auto twice = find_op<Unary>("testops::twice");
  Tensor x = ones({2}).requires_grad_();
  CHECK_THROWS_WITH(twice(x), Contains("testops::twice: argument x ([2] float32 cpu) requires grad, but a registered "
                                       "op records no gradient"));
  autograd::NoGradGuard no_grad;
  CHECK(equal(twice(x), full({2}, 2.0)));
}

TEST_CASE("a lookup whose C++ signature differs from the schema names the argument and both types") {
  CHECK_THROWS_WITH(find_op<Tensor(const Tensor&, const Tensor&, const Tensor&)>("testops::axpy"),
                    Equals("testops::axpy: find_op's signature's argument 2 (a) is float in the schema, but its C++ "
                           "type is const Tensor&"));
  CHECK_THROWS_WITH(find_op<Unary>("testops::axpy"),
                    Contains("find_op's signature takes 1 arguments, the schema 3: axpy(Tensor x, Tensor y, float a) "
                             "-> Tensor"));
  CHECK_THROWS_WITH(find_op<Tensor(const Tensor&)>("testops::split_sign"),
                    Contains("find_op's signature returns Tensor, the schema (Tensor, Tensor)"));
  using ThreeTensors = std::tuple<Tensor, Tensor, Tensor>;
  CHECK_THROWS_WITH(find_op<ThreeTensors(const Tensor&)>("testops::split_sign"),
                    Contains("returns std::tuple<Tensor, Tensor, Tensor>, the schema (Tensor, Tensor)"));
  CHECK_THROWS_WITH(find_op<Tensor(const Tensor&, int64_t)>("testops::cpu_only"), Contains("takes 2 arguments"));
}

TEST_CASE("an unknown op is an error naming close matches") {
  CHECK_THROWS_WITH(find_op<Axpy>("testops::axpi"),
                    Equals("find_op: no op named testops::axpi is registered; did you mean testops::axpy?"));
  CHECK_THROWS_WITH(find_op<Axpy>("otherops::axpy"), Contains("did you mean testops::axpy?"));
  CHECK_THROWS_WITH(find_op<Axpy>("nothing::like_it"), Equals("find_op: no op named nothing::like_it is registered"));
}

Tensor float_kernel(const Tensor& x, double s) { return x * s; }
Tensor int_kernel(const Tensor& x, int64_t n) { return x * static_cast<double>(n); }

TEST_CASE("registration checks each kernel against the schema, in either order, and raises at lookup") {
  // Kernels before the def (another translation unit may initialize first).
  Library("order_a", DeviceType::CPU).impl("op", &int_kernel);
  Library("order_a", DeviceType::Sim).impl("good", sim_kernel_from_cpu(&float_kernel));
  CHECK_THROWS_WITH(find_op<Tensor(const Tensor&, double)>("order_a::good"),
                    Equals("order_a::good: has kernels (Sim) but was never declared: add m.def(\"good(...) -> ...\") "
                           "to BRISK_LIBRARY(order_a, m)"));
  Library("order_a").def("op(Tensor x, float s) -> Tensor").def("good(Tensor x, float s) -> Tensor");
  CHECK_THROWS_WITH(find_op<Tensor(const Tensor&, double)>("order_a::op"),
                    Equals("order_a::op: the CPU kernel's argument 1 (s) is float in the schema, but its C++ type is "
                           "int64_t"));
  CHECK(equal(find_op<Tensor(const Tensor&, double)>("order_a::good")(ones({1}).to(sim_device(0)), 2.0).cpu(),
              full({1}, 2.0)));

  // The def before the kernels.
  Library("order_b").def("op(Tensor x, int n) -> Tensor");
  Library("order_b", DeviceType::CPU).impl("op", &float_kernel);
  CHECK_THROWS_WITH(find_op<Tensor(const Tensor&, int64_t)>("order_b::op"),
                    Contains("the CPU kernel's argument 1 (n) is int in the schema, but its C++ type is double"));
}

TEST_CASE("two defs of one op with different schemas, and two kernels for one device type, are errors") {
  Library("dup").def("op(Tensor x, float s) -> Tensor").def("op(Tensor x, int s) -> Tensor");
  CHECK_THROWS_WITH(find_op<Tensor(const Tensor&, double)>("dup::op"),
                    Contains("dup::op: declared twice with different schemas: op(Tensor x, float s) -> Tensor and "
                             "op(Tensor x, int s) -> Tensor"));

  Library("dup2").def("op(Tensor x, float s) -> Tensor");
  Library("dup2", DeviceType::CPU).impl("op", &float_kernel).impl("op", &float_kernel);
  CHECK_THROWS_WITH(find_op<Tensor(const Tensor&, double)>("dup2::op"),
                    Equals("dup2::op: a second CPU kernel was registered (one per device type)"));
}

TEST_CASE("def, impl and the simulated device's adapter in the wrong block are errors") {
  Library("blocks", DeviceType::CPU).def("op(Tensor x) -> Tensor");
  CHECK_THROWS_WITH(find_op<Unary>("blocks::op"), Contains("m.def in BRISK_LIBRARY_IMPL"));
  Library("blocks2").impl("op", &float_kernel);
  CHECK_THROWS_WITH(find_op<Unary>("blocks2::op"), Contains("m.impl in BRISK_LIBRARY:"));
  Library("blocks3").def("op(Tensor x, float s) -> Tensor");
  Library("blocks3", DeviceType::CPU).impl("op", sim_kernel_from_cpu(&float_kernel));
  CHECK_THROWS_WITH(find_op<Tensor(const Tensor&, double)>("blocks3::op"),
                    Contains("sim_kernel_from_cpu makes a Sim kernel, registered here for CPU"));
  CHECK_THROWS_WITH(find_op<Unary>("bad_schema::op"), Contains("bad_schema::op: schema \"op(Tensor x) -> int\""));
}

TEST_CASE("each call is a profiler event under the op's name, with its inputs' shapes and dtypes") {
  auto axpy = find_op<Axpy>("testops::axpy");
  Tensor x = ones({2, 3}), y = ones({2, 3});
  profiler::Profiler prof;
  prof.start();
  axpy(x, y, 2.0);
  prof.stop();
  const profiler::Event* event = nullptr;
  for (const profiler::Event& e : prof.events())
    if (e.name == "testops::axpy") event = &e;
  REQUIRE(event != nullptr);
  CHECK(event->category == profiler::Category::Op);
  profiler::Args expected{{"Input Dims", "[[2, 3], [2, 3]]"}, {"Input type", "float32, float32"}, {"device", "cpu"}};
  CHECK(event->args == expected);
  // The kernel's own ops are nested in it.
  bool nested = false;
  for (const profiler::Event& e : prof.events())
    nested = nested || (e.name == "mul" && e.start_ns >= event->start_ns && e.end_ns <= event->end_ns);
  CHECK(nested);
}

TEST_CASE("lookups and calls from many threads") {
  std::atomic<int> right{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        auto axpy = find_op<Axpy>("testops::axpy");
        if (equal(axpy(full({4}, double(t)), ones({4}), 2.0), full({4}, 2.0 * t + 1))) ++right;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(right == 400);
}

}  // namespace
}  // namespace brisk::library
