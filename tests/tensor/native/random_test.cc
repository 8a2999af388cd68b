// Random ops: Philox known answers, reproducibility, thread-count independence and the
// statistics of the distributions.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tensor/functors/philox.h"
#include "tensor/generator.h"
#include "tensor/native/ops.h"
#include "tensor/parallel.h"

using namespace brisk;
using Catch::Matchers::Contains;

namespace {

struct Moments {
  double mean, std;
};

Moments moments(const std::vector<double>& v) {
  double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  double sq = 0;
  for (double x : v) sq += (x - mean) * (x - mean);
  return {mean, std::sqrt(sq / static_cast<double>(v.size() - 1))};
}

Tensor normal(const Shape& shape, DType dtype, uint64_t seed) {
  Generator gen(seed);
  Tensor t = native::empty(shape, dtype);
  native::normal_(t, 0.0, 1.0, &gen);
  return t;
}

}  // namespace

TEST_CASE("Philox4x32-10 matches the Random123 known-answer tests", "[random]") {
  auto check = [](Philox4x32 ctr, uint32_t k0, uint32_t k1, std::array<uint32_t, 4> want) {
    Philox4x32 r = philox4x32_10(ctr, k0, k1);
    CHECK(std::array<uint32_t, 4>{r.v[0], r.v[1], r.v[2], r.v[3]} == want);
  };
  check({{0, 0, 0, 0}}, 0, 0, {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u});
  check({{~0u, ~0u, ~0u, ~0u}}, ~0u, ~0u, {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu});
  check({{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}}, 0xa4093822u, 0x299f31d0u,
        {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u});
}

TEST_CASE("the same seed gives the same numbers; each op advances the generator", "[random]") {
  Generator a(42), b(42), c(43);
  Tensor x = native::empty({1000}), y = native::empty({1000}), z = native::empty({1000});
  native::uniform_(x, 0, 1, &a);
  native::uniform_(y, 0, 1, &b);
  native::uniform_(z, 0, 1, &c);
  CHECK(x.to_vector<float>() == y.to_vector<float>());
  CHECK(x.to_vector<float>() != z.to_vector<float>());
  CHECK(a.get_state().offset == 1000);
  native::uniform_(y, 0, 1, &b);
  CHECK(x.to_vector<float>() != y.to_vector<float>());

  manual_seed(7);
  Tensor d1 = native::empty({10});
  native::normal_(d1, 0, 1, nullptr);
  manual_seed(7);
  Tensor d2 = native::empty({10});
  native::normal_(d2, 0, 1, nullptr);
  CHECK(d1.to_vector<float>() == d2.to_vector<float>());
}

TEST_CASE("results do not depend on the number of threads", "[random]") {
  int threads = get_num_threads();
  set_num_threads(1);
  std::vector<float> one = normal({100003}, kFloat32, 5).to_vector<float>();
  set_num_threads(std::max(threads, 4));
  std::vector<float> many = normal({100003}, kFloat32, 5).to_vector<float>();
  set_num_threads(threads);
  CHECK(one == many);
}

TEST_CASE("a strided tensor gets the numbers of a dense one, in logical order", "[random]") {
  Tensor strided = native::transpose(native::empty({4, 3}), 0, 1);
  Generator g1(9), g2(9);
  native::uniform_(strided, -2, 3, &g1);
  Tensor dense = native::empty({3, 4});
  native::uniform_(dense, -2, 3, &g2);
  CHECK(strided.to_vector<float>() == dense.to_vector<float>());
}

TEST_CASE("distributions have the right moments", "[random]") {
  for (DType dtype : {kFloat32, kFloat64}) {
    Moments n = moments(normal({1000000}, dtype, 11).to_vector<double>());
    CHECK(std::fabs(n.mean) < 0.005);
    CHECK(std::fabs(n.std - 1.0) < 0.005);

    Generator gen(12);
    Tensor u = native::empty({1000000}, dtype);
    native::uniform_(u, -1.0, 3.0, &gen);
    std::vector<double> uv = u.to_vector<double>();
    CHECK(*std::min_element(uv.begin(), uv.end()) >= -1.0);
    CHECK(*std::max_element(uv.begin(), uv.end()) < 3.0);
    Moments m = moments(uv);
    CHECK(std::fabs(m.mean - 1.0) < 0.01);
    CHECK(std::fabs(m.std - 4.0 / std::sqrt(12.0)) < 0.01);
  }
  Generator gen(13);
  Tensor shifted = native::empty({200000}, kFloat64);
  native::normal_(shifted, 5.0, 0.5, &gen);
  Moments s = moments(shifted.to_vector<double>());
  CHECK(std::fabs(s.mean - 5.0) < 0.01);
  CHECK(std::fabs(s.std - 0.5) < 0.01);
}

TEST_CASE("bernoulli", "[random]") {
  Generator gen(14);
  Tensor mask = native::empty({200000}, kInt64);
  native::bernoulli_(mask, 0.3, &gen);
  std::vector<int64_t> mv = mask.to_vector<int64_t>();
  CHECK(std::all_of(mv.begin(), mv.end(), [](int64_t v) { return v == 0 || v == 1; }));
  CHECK(std::fabs(std::accumulate(mv.begin(), mv.end(), 0.0) / 200000 - 0.3) < 0.01);

  Tensor p = native::from_vector(std::vector<float>{0.0f, 1.0f, 0.5f}, {3}, kFloat32);
  Tensor draws = native::bernoulli(native::expand(native::unsqueeze(p, 0), {100000, 3}), &gen);
  CHECK(draws.dtype() == kFloat32);
  std::vector<float> dv = draws.to_vector<float>();
  double sums[3] = {0, 0, 0};
  for (size_t i = 0; i < dv.size(); ++i) sums[i % 3] += dv[i];
  CHECK(sums[0] == 0);
  CHECK(sums[1] == 100000);
  CHECK(std::fabs(sums[2] / 100000 - 0.5) < 0.01);

  Tensor f = native::empty({3});
  CHECK_THROWS_WITH(native::bernoulli_(f, 1.5, &gen), Contains("bernoulli_") && Contains("1.5"));
  CHECK_THROWS_WITH(native::bernoulli(native::full({2}, 2.0, kFloat32), &gen), Contains("[0, 1]"));
  CHECK_THROWS_WITH(native::bernoulli(native::zeros({2}, kInt64), &gen), Contains("floating point"));
}

TEST_CASE("randperm is a reproducible permutation", "[random]") {
  Generator g1(15), g2(15);
  std::vector<int64_t> p = native::randperm(1000, &g1).to_vector<int64_t>();
  CHECK(native::randperm(1000, &g2).to_vector<int64_t>() == p);
  std::vector<int64_t> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> iota(1000);
  std::iota(iota.begin(), iota.end(), int64_t{0});
  CHECK(sorted == iota);
  CHECK(p != iota);

  CHECK(native::randperm(0, &g1).numel() == 0);
  Tensor small = native::randperm(5, &g1, kInt32);
  CHECK(small.dtype() == kInt32);
  CHECK(small.numel() == 5);
  CHECK_THROWS_WITH(native::randperm(-1, &g1), Contains("non-negative"));
  CHECK_THROWS_WITH(native::randperm(300, &g1, kUInt8), Contains("uint8"));
}

TEST_CASE("randint draws every integer of [low, high) about equally often, reproducibly", "[random]") {
  Generator g1(21), g2(21);
  Tensor t = native::randint(-3, 4, {70000}, kInt64, &g1);
  CHECK(t.dtype() == kInt64);
  CHECK(native::equal(native::randint(-3, 4, {70000}, kInt64, &g2), t));
  std::vector<int64_t> counts(7, 0);
  for (int64_t v : t.to_vector<int64_t>()) {
    REQUIRE(v >= -3);
    REQUIRE(v < 4);
    ++counts[static_cast<size_t>(v + 3)];
  }
  for (int64_t c : counts) CHECK(std::fabs(static_cast<double>(c) / 10000.0 - 1.0) < 0.05);
  // Other dtypes hold the same integers; a huge range stays in bounds.
  Tensor floats = native::randint(0, 10, {2, 50}, kFloat32, &g1);
  for (float v : floats.to_vector<float>()) CHECK((v == std::floor(v) && v >= 0 && v < 10));
  int64_t big = int64_t{1} << 52;
  for (int64_t v : native::randint(-big, big, {1000}, kInt64, &g1).to_vector<int64_t>()) CHECK((v >= -big && v < big));
  CHECK(native::randint(5, 6, {3}, kUInt8, &g1).to_vector<uint8_t>() == std::vector<uint8_t>{5, 5, 5});

  CHECK_THROWS_WITH(native::randint(3, 3, {2}, kInt64, &g1),
                    Contains("randint: expected low < high, got low=3 high=3"));
  CHECK_THROWS_WITH(native::randint(0, 300, {2}, kUInt8, &g1), Contains("randint") && Contains("uint8"));
  CHECK_THROWS_WITH(native::randint(0, 2, {2}, kBool, &g1), Contains("randint: the dtype must be numeric"));
}

TEST_CASE("random ops check their arguments", "[random]") {
  Tensor ints = native::zeros({2}, kInt64);
  CHECK_THROWS_WITH(native::uniform_(ints, 0, 1, nullptr), Contains("uniform_") && Contains("int64"));
  CHECK_THROWS_WITH(native::normal_(ints, 0, 1, nullptr), Contains("normal_") && Contains("int64"));
  Tensor f = native::zeros({2});
  CHECK_THROWS_WITH(native::uniform_(f, 2, 1, nullptr), Contains("from <= to"));
  CHECK_THROWS_WITH(native::normal_(f, 0, -1, nullptr), Contains("std >= 0"));
}
