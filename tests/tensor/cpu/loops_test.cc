// The CPU elementwise loop (tensor/cpu/loops.h) and parallel_for (tensor/parallel.h). The loop's
// geometry is tested in iter_test.cc.
#include <atomic>
#include <numeric>

#include "tensor/cpu/loops.h"
#include "tests/tensor/native_test_util.h"

namespace brisk {
namespace {

using testing::make;

Tensor arange_f(int64_t n, const Shape& shape) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return make(v, shape);
}

TEST_CASE("cpu_kernel over broadcast, strided and contiguous operands") {
  auto add = [](float x, float y) -> float { return x + 10 * y; };
  SECTION("broadcast [3, 1] with [1, 4]") {
    Tensor a = arange_f(3, {3, 1});
    Tensor b = arange_f(4, {1, 4});
    Tensor out = native::empty({3, 4});
    cpu::cpu_kernel(out, add, native::expand(a, {3, 4}), native::expand(b, {3, 4}));
    testing::require_close(out, {0, 10, 20, 30, 1, 11, 21, 31, 2, 12, 22, 32});
  }
  SECTION("a broadcast scalar among contiguous inputs") {
    Tensor a = arange_f(5, {5});
    Tensor s = native::expand(make<float>({2}, {}), {5});
    Tensor out = native::empty({5});
    cpu::cpu_kernel(out, add, a, s);
    testing::require_close(out, {20, 21, 22, 23, 24});
    cpu::cpu_kernel(out, add, s, a);
    testing::require_close(out, {2, 12, 22, 32, 42});
  }
  SECTION("transposed input and strided output") {
    Tensor a = native::transpose(arange_f(6, {2, 3}), 0, 1);  // [[0, 3], [1, 4], [2, 5]]
    Tensor big = native::zeros({3, 4});
    Tensor out = native::slice(big, 1, 0, 4, 2);  // [3, 2] with strides [4, 2]
    cpu::cpu_kernel(
        out, [](float x) -> float { return x * 2; }, a);
    testing::require_close(big, {0, 0, 6, 0, 2, 0, 8, 0, 4, 0, 10, 0});
  }
  SECTION("mixed element types: int64 and bool in, float out") {
    Tensor i = make<int64_t>({1, 2, 3}, {3});
    Tensor m = make<bool>({true, false, true}, {3});
    Tensor out = native::empty({3});
    cpu::cpu_kernel(
        out, [](int64_t x, bool b) -> float { return b ? float(x) : -1.0f; }, i, m);
    testing::require_close(out, {1, -1, 3});
  }
  SECTION("a nullary kernel fills") {
    Tensor out = native::empty({2, 2});
    cpu::cpu_kernel(out, []() -> float { return 7.0f; });
    testing::require_close(out, {7, 7, 7, 7});
  }
  SECTION("an empty tensor runs nothing") {
    Tensor out = native::empty({0, 3});
    cpu::cpu_kernel(out, []() -> float {
      FAIL("called on an empty tensor");
      return 0.0f;
    });
  }
  SECTION("a dtype that does not match the functor is an error") {
    Tensor out = native::empty({2}, kFloat64);
    REQUIRE_THROWS_WITH(cpu::cpu_kernel(out, []() -> float { return 0.0f; }),
                        Catch::Contains("float64") && Catch::Contains("float32"));
  }
}

TEST_CASE("cpu_kernel splits large tensors over threads and covers every element once") {
  const int64_t rows = 300, cols = 1001;  // > kGrainSize elements, and rows that straddle chunks
  Tensor a = arange_f(rows * cols, {rows, cols});
  SECTION("contiguous") {
    Tensor out = native::empty({rows, cols});
    cpu::cpu_kernel(
        out, [](float x) -> float { return x + 1; }, a);
    std::vector<float> v = out.to_vector<float>();
    for (int64_t i = 0; i < rows * cols; ++i) REQUIRE(v[i] == float(i + 1));
  }
  SECTION("a batch of transposed matrices goes in tiles") {
    Tensor b = arange_f(5 * 70 * 90, {5, 70, 90});
    Tensor t = native::transpose(b, 1, 2);  // [5, 90, 70]
    Tensor out = native::empty({5, 90, 70});
    iter::LoopShape s = iter::make_loop_shape({&out, &t}, "test");
    REQUIRE(cpu::wants_tiles(s));
    cpu::cpu_kernel(
        out, [](float x) -> float { return x; }, t);
    std::vector<float> v = out.to_vector<float>();
    for (int64_t i = 0; i < 5; ++i) {
      for (int64_t r = 0; r < 90; ++r) {
        for (int64_t c = 0; c < 70; ++c) REQUIRE(v[(i * 90 + r) * 70 + c] == float((i * 70 + c) * 90 + r));
      }
    }
  }
  SECTION("transposed") {
    Tensor t = native::transpose(a, 0, 1);  // [cols, rows]
    Tensor out = native::empty({cols, rows});
    cpu::cpu_kernel(
        out, [](float x) -> float { return x; }, t);
    std::vector<float> v = out.to_vector<float>();
    for (int64_t c = 0; c < cols; ++c) {
      for (int64_t r = 0; r < rows; r += 37) REQUIRE(v[c * rows + r] == float(r * cols + c));
    }
  }
}

TEST_CASE("parallel_for") {
  SECTION("chunks cover the range exactly once") {
    std::vector<std::atomic<int>> hits(100000);
    parallel_for(0, 100000, 1000, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) hits[i]++;
    });
    for (auto& h : hits) REQUIRE(h.load() == 1);
  }
  SECTION("a range within the grain size runs as one call") {
    int calls = 0;
    parallel_for(5, 105, 1000, [&](int64_t b, int64_t e) {
      ++calls;
      REQUIRE(b == 5);
      REQUIRE(e == 105);
    });
    REQUIRE(calls == 1);
  }
  SECTION("nested loops run serially inside a parallel region") {
    // Catch2 is not thread-safe: count in the loop, check after it.
    std::atomic<int> outer_chunks{0}, inner_calls{0}, whole_range_calls{0};
    parallel_for(0, 4, 1, [&](int64_t, int64_t) {
      outer_chunks++;
      parallel_for(0, 1000000, 1, [&](int64_t b, int64_t e) {
        inner_calls++;
        if (b == 0 && e == 1000000) whole_range_calls++;
      });
    });
    if (outer_chunks.load() > 1) {
      REQUIRE(inner_calls.load() == outer_chunks.load());
      REQUIRE(whole_range_calls.load() == outer_chunks.load());
    }
  }
  SECTION("an exception in a chunk reaches the caller") {
    REQUIRE_THROWS_WITH(parallel_for(0, 1000, 1,
                                     [&](int64_t b, int64_t) {
                                       if (b == 0) BRISK_FAIL("chunk failed");
                                     }),
                        Catch::Contains("chunk failed"));
  }
  SECTION("the thread count can be set") {
    int before = get_num_threads();
    set_num_threads(1);
    REQUIRE(get_num_threads() == 1);
    set_num_threads(before);
    REQUIRE(get_num_threads() == before);
    REQUIRE_THROWS_WITH(set_num_threads(0), Catch::Contains("set_num_threads"));
  }
}

}  // namespace
}  // namespace brisk
