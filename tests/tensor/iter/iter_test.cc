// The geometry of loops shared by the CPU and CUDA backends (tensor/iter/): make_loop_shape
// and make_reduce_shape.
#include <catch2/catch.hpp>

#include "tensor/iter/loop_shape.h"
#include "tensor/iter/reduce_shape.h"
#include "tensor/native/ops.h"

namespace brisk {
namespace {

TEST_CASE("make_loop_shape merges dims that are contiguous in every operand") {
  Tensor a = native::empty({2, 3, 4});
  Tensor out = native::empty({2, 3, 4});
  iter::LoopShape s = iter::make_loop_shape({&out, &a}, "test");
  REQUIRE(s.ndim == 1);
  REQUIRE(s.sizes[0] == 24);
  REQUIRE(s.strides[0][0] == 4);
  REQUIRE(s.numel == 24);

  SECTION("a narrowed inner dim splits the run in two") {
    Tensor n = native::narrow(native::empty({4, 6}), 1, 0, 3);
    Tensor o = native::empty({4, 3});
    iter::LoopShape t = iter::make_loop_shape({&o, &n}, "test");
    REQUIRE(t.ndim == 2);
    REQUIRE(t.sizes[0] == 3);
    REQUIRE(t.sizes[1] == 4);
    REQUIRE(t.strides[1][1] == 6 * 4);
  }
  SECTION("a broadcast operand keeps its stride-0 dim") {
    Tensor row = native::expand(native::empty({1, 4}), {3, 4});
    Tensor o = native::empty({3, 4});
    iter::LoopShape t = iter::make_loop_shape({&o, &row}, "test");
    REQUIRE(t.ndim == 2);
    REQUIRE(t.strides[1][1] == 0);
  }
  SECTION("dims are ordered by the output's strides") {
    Tensor o = native::transpose(native::empty({4, 3}), 0, 1);  // [3, 4] with strides [1, 3]
    Tensor in = native::empty({3, 4});
    iter::LoopShape t = iter::make_loop_shape({&o, &in}, "test");
    REQUIRE(t.ndim == 2);
    REQUIRE(t.strides[0][0] == 4);  // innermost: the output's stride-1 dim
    REQUIRE(t.sizes[0] == 3);
  }
  SECTION("size-1 dims and 0-dim tensors become one element") {
    Tensor x = native::empty({1, 1});
    Tensor y = native::empty({1, 1});
    iter::LoopShape t = iter::make_loop_shape({&x, &y}, "test");
    REQUIRE(t.ndim == 1);
    REQUIRE(t.numel == 1);
  }
  SECTION("mismatched shapes are an error naming both") {
    Tensor o = native::empty({2, 3});
    Tensor bad = native::empty({3, 2});
    REQUIRE_THROWS_WITH(iter::make_loop_shape({&o, &bad}, "myop"),
                        Catch::Contains("myop") && Catch::Contains("[3, 2]") && Catch::Contains("[2, 3]"));
  }
}

TEST_CASE("make_reduce_shape splits kept and reduced dims and merges each group") {
  Tensor in = native::empty({2, 3, 4});
  SECTION("reducing the inner dims of a contiguous tensor: one kept and one reduced run") {
    Tensor out = native::empty({2, 1, 1});
    iter::ReduceShape s = iter::make_reduce_shape(in, {1, 2}, {&out});
    REQUIRE(s.nkept == 1);
    REQUIRE(s.kept_sizes[0] == 2);
    REQUIRE(s.kept_in_strides[0] == 12 * 4);
    REQUIRE(s.nreduced == 1);
    REQUIRE(s.red_sizes[0] == 12);
    REQUIRE(s.red_strides[0] == 4);
    REQUIRE(s.num_outputs == 2);
    REQUIRE(s.num_reduced == 12);
  }
  SECTION("reducing the outer dim: the reduced elements are a row apart") {
    Tensor out = native::empty({1, 3, 4});
    iter::ReduceShape s = iter::make_reduce_shape(in, {0}, {&out});
    REQUIRE(s.nkept == 1);
    REQUIRE(s.kept_sizes[0] == 12);
    REQUIRE(s.kept_out_strides[0][0] == 4);
    REQUIRE(s.red_sizes[0] == 2);
    REQUIRE(s.red_strides[0] == 12 * 4);
  }
  SECTION("a full reduction keeps one size-1 dim") {
    Tensor out = native::empty({1, 1, 1});
    iter::ReduceShape s = iter::make_reduce_shape(in, {0, 1, 2}, {&out});
    REQUIRE(s.nkept == 1);
    REQUIRE(s.kept_sizes[0] == 1);
    REQUIRE(s.num_outputs == 1);
    REQUIRE(s.num_reduced == 24);
  }
  SECTION("an output of the wrong shape is an error") {
    Tensor out = native::empty({2, 3, 1});
    REQUIRE_THROWS_WITH(iter::make_reduce_shape(in, {1, 2}, {&out}), Catch::Contains("expected [2, 1, 1]"));
  }
}

}  // namespace
}  // namespace brisk
