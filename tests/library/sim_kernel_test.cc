// sim_kernel_from_cpu: an op's CPU kernel run for sim tensors through their host aliases,
// results on the arguments' device.
#include "library/sim_kernel.h"

#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "library/library.h"

namespace brisk::sim_kernel_test {

Tensor add_scaled(const Tensor& x, const Tensor& y, double s) { return x + y * s; }
std::tuple<Tensor, Tensor> halves(const Tensor& x) { return {x.narrow(0, 0, 1), x.narrow(0, 1, 1)}; }
std::vector<Tensor> doubled(const std::vector<Tensor>& xs) {
  std::vector<Tensor> out;
  for (const Tensor& x : xs) out.push_back(x.defined() ? x * 2.0 : Tensor());
  return out;
}
// Writes through its argument: on the simulated device the write reaches the device tensor.
Tensor fill_ones(Tensor x) {
  x.fill_(1.0);
  return x.sum();
}
// What the adapter hands the kernel: CPU tensors, whatever the device of the call.
Tensor device_seen(const Tensor& x) { return full({1}, x.is_cpu() ? 1.0 : 0.0); }

}  // namespace brisk::sim_kernel_test

BRISK_LIBRARY(simtest, m) {
  m.def("add_scaled(Tensor x, Tensor y, float s) -> Tensor");
  m.def("halves(Tensor x) -> (Tensor, Tensor)");
  m.def("doubled(Tensor[] xs) -> Tensor[]");
  m.def("fill_ones(Tensor x) -> Tensor");
  m.def("device_seen(Tensor x) -> Tensor");
}

BRISK_LIBRARY_IMPL(simtest, Sim, m) {
  using brisk::library::sim_kernel_from_cpu;
  using namespace brisk::sim_kernel_test;
  m.impl("add_scaled", sim_kernel_from_cpu(&add_scaled));
  m.impl("halves", sim_kernel_from_cpu(&halves));
  m.impl("doubled", sim_kernel_from_cpu(&doubled));
  m.impl("fill_ones", sim_kernel_from_cpu(&fill_ones));
  m.impl("device_seen", sim_kernel_from_cpu(&device_seen));
}

namespace brisk::library {
namespace {

const Device sim2 = sim_device(2);

TEST_CASE("a CPU kernel adapted to the simulated device computes the CPU's values, on the arguments' device") {
  Tensor x = randn({3, 4}), y = randn({3, 4});
  Tensor out =
      find_op<Tensor(const Tensor&, const Tensor&, double)>("simtest::add_scaled")(x.to(sim2), y.to(sim2), 0.5);
  CHECK(out.device() == sim2);
  CHECK(allclose(out.cpu(), x + y * 0.5));

  auto [first, second] = find_op<std::tuple<Tensor, Tensor>(const Tensor&)>("simtest::halves")(x.to(sim2));
  CHECK(first.device() == sim2);
  CHECK(second.device() == sim2);
  CHECK(equal(second.cpu(), x.narrow(0, 1, 1)));

  std::vector<Tensor> list =
      find_op<std::vector<Tensor>(const std::vector<Tensor>&)>("simtest::doubled")({x.to(sim2), Tensor(), y.to(sim2)});
  REQUIRE(list.size() == 3);
  CHECK(list[0].device() == sim2);
  CHECK_FALSE(list[1].defined());
  CHECK(equal(list[2].cpu(), y * 2.0));
}

TEST_CASE("the adapted kernel sees CPU tensors over the device memory, so in-place writes reach the device") {
  CHECK(equal(find_op<Tensor(const Tensor&)>("simtest::device_seen")(ones({2}).to(sim2)).cpu(), ones({1})));
  Tensor x = zeros({2, 2}).to(sim2);
  Tensor sum = find_op<Tensor(const Tensor&)>("simtest::fill_ones")(x);
  CHECK(x.device() == sim2);
  CHECK(equal(x.cpu(), ones({2, 2})));
  CHECK(sum.item<float>() == 4.0f);
}

TEST_CASE("the adapted op has no CPU kernel of its own: a CPU call is refused") {
  CHECK_THROWS_WITH(find_op<Tensor(const Tensor&)>("simtest::device_seen")(ones({2})),
                    Catch::Matchers::Equals("simtest::device_seen: no kernel for device cpu (kernels: Sim)"));
}

}  // namespace
}  // namespace brisk::library
