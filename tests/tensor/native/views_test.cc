// Views share storage and get PyTorch's sizes, strides and offsets; bad arguments name the op.
#include <catch2/catch.hpp>

#include "tensor/native/ops.h"

using namespace brisk;
using Catch::Matchers::Contains;

namespace {
// 0, 1, ..., n-1 as float32, viewed as `shape`.
Tensor iota(const Shape& shape) { return native::view(native::arange(0, shape_numel(shape), 1, kFloat32), shape); }
}  // namespace

TEST_CASE("view shares storage and computes PyTorch's strides", "[views]") {
  Tensor t = iota({2, 3, 4});
  Tensor v = native::view(t, {6, -1});
  CHECK(v.sizes() == Shape{6, 4});
  CHECK(v.strides() == Shape{4, 1});
  CHECK(v.storage() == t.storage());

  // Splitting dims of a transposed tensor works; merging across the transpose does not.
  Tensor tt = native::transpose(t, 0, 1);  // [3, 2, 4] strides [4, 12, 1]
  CHECK(native::view(tt, {3, 2, 2, 2}).strides() == Shape{4, 12, 2, 1});
  CHECK_THROWS_WITH(native::view(tt, {3, 8}),
                    Contains("is not compatible with input tensor's size") && Contains("Use .reshape(...) instead"));

  // A column slice keeps its row stride.
  Tensor cols = native::slice(iota({4, 6}), 1, std::nullopt, 4, 1);
  CHECK(native::view(cols, {4, 2, 2}).strides() == Shape{6, 2, 1});
  CHECK_THROWS_WITH(native::view(cols, {16}), Contains("[4, 4]") && Contains("[6, 1]"));

  // Size-1 dims with any stride do not block a view.
  Tensor odd = native::unsqueeze(native::transpose(iota({2, 3}), 0, 1), 1);  // [3, 1, 2] strides [1, 6, 3]
  CHECK(odd.strides() == Shape{1, 6, 3});
  CHECK(native::view(odd, {3, 2}).strides() == Shape{1, 3});

  CHECK(native::view(native::empty({2, 0, 3}), {0, 3}).strides() == Shape{3, 1});
  CHECK_THROWS_WITH(native::view(t, {5, 5}), Contains("[5, 5]") && Contains("24"));
}

TEST_CASE("reshape views when it can and copies when it must", "[views]") {
  Tensor t = iota({2, 3});
  Tensor r = native::reshape(t, {3, 2});
  CHECK(r.storage() == t.storage());

  Tensor c = native::reshape(native::transpose(t, 0, 1), {6});
  CHECK(c.storage() != t.storage());
  CHECK(c.is_contiguous());
  CHECK(c.to_vector<float>() == std::vector<float>{0, 3, 1, 4, 2, 5});
}

TEST_CASE("permute, transpose and t-style swaps", "[views]") {
  Tensor t = iota({2, 3, 4});
  Tensor p = native::permute(t, {2, 0, 1});
  CHECK(p.sizes() == Shape{4, 2, 3});
  CHECK(p.strides() == Shape{1, 12, 4});
  CHECK(p.storage() == t.storage());
  CHECK(native::permute(t, {-1, 0, 1}).strides() == p.strides());
  CHECK_THROWS_WITH(native::permute(t, {0, 0, 1}), Contains("permute") && Contains("repeat"));
  CHECK_THROWS_WITH(native::permute(t, {0, 1}), Contains("permute") && Contains("[2, 3, 4]"));

  Tensor tr = native::transpose(t, -1, 0);
  CHECK(tr.sizes() == Shape{4, 3, 2});
  CHECK(tr.strides() == Shape{1, 4, 12});
  CHECK_THROWS_WITH(native::transpose(t, 0, 3), Contains("transpose") && Contains("dim 3"));
  CHECK(native::transpose(native::scalar_tensor(1.0, kFloat32), 0, -1).dim() == 0);
}

TEST_CASE("narrow, slice and select move the offset", "[views]") {
  Tensor t = iota({4, 5});
  Tensor n = native::narrow(t, 1, 1, 3);
  CHECK(n.sizes() == Shape{4, 3});
  CHECK(n.offset() == 1);
  CHECK(native::narrow(t, 0, -2, 2).offset() == 10);
  CHECK_THROWS_WITH(native::narrow(t, 1, 3, 3), Contains("narrow") && Contains("3 + length 3"));

  Tensor v = iota({10});
  Tensor tail = native::slice(v, 0, -3, std::nullopt, 1);
  CHECK(tail.offset() == 7);
  CHECK(tail.to_vector<float>() == std::vector<float>{7, 8, 9});
  Tensor stepped = native::slice(v, 0, 2, 9, 3);
  CHECK(stepped.strides() == Shape{3});
  CHECK(stepped.to_vector<float>() == std::vector<float>{2, 5, 8});
  // Python clamps out-of-range bounds and empty ranges.
  CHECK(native::slice(v, 0, -100, 100, 1).size(0) == 10);
  CHECK(native::slice(v, 0, 8, 3, 1).size(0) == 0);
  CHECK(native::slice(v, 0, 5, 6, 4).to_vector<float>() == std::vector<float>{5});
  CHECK_THROWS_WITH(native::slice(v, 0, 0, 5, 0), Contains("step"));

  Tensor row = native::select(t, 0, -1);
  CHECK(row.sizes() == Shape{5});
  CHECK(row.offset() == 15);
  Tensor col = native::select(t, 1, 2);
  CHECK(col.strides() == Shape{5});
  CHECK(col.to_vector<float>() == std::vector<float>{2, 7, 12, 17});
  CHECK_THROWS_WITH(native::select(t, 0, 4), Contains("select") && Contains("index 4") && Contains("[4, 5]"));
  CHECK_THROWS_WITH(native::select(native::scalar_tensor(1.0, kFloat32), 0, 0), Contains("0-dim"));
}

TEST_CASE("expand adds stride-0 dims", "[views]") {
  Tensor t = native::zeros({3, 1, 4});
  Tensor e = native::expand(t, {2, 3, 5, 4});
  CHECK(e.sizes() == Shape{2, 3, 5, 4});
  CHECK(e.strides() == Shape{0, 4, 0, 1});
  CHECK(e.storage() == t.storage());
  CHECK(native::expand(t, {-1, 7, -1}).sizes() == Shape{3, 7, 4});
  CHECK(native::expand(native::scalar_tensor(2.0, kFloat32), {2, 2}).strides() == Shape{0, 0});
  CHECK_THROWS_WITH(native::expand(t, {3, 2, 5}), Contains("expand") && Contains("existing size 4"));
  CHECK_THROWS_WITH(native::expand(t, {-1, 3, 1, 4}), Contains("-1"));
  CHECK_THROWS_WITH(native::expand(t, {1, 4}), Contains("[1, 4]") && Contains("[3, 1, 4]"));
}

TEST_CASE("squeeze, unsqueeze and flatten", "[views]") {
  Tensor t = native::zeros({3, 1, 4, 1});
  CHECK(native::squeeze(t, std::nullopt).sizes() == Shape{3, 4});
  CHECK(native::squeeze(t, 1).sizes() == Shape{3, 4, 1});
  CHECK(native::squeeze(t, 0).sizes() == Shape{3, 1, 4, 1});
  CHECK(native::squeeze(t, -1).strides() == Shape{4, 4, 1});

  Tensor u = native::zeros({3, 1, 4});
  CHECK(native::unsqueeze(u, 1).strides() == Shape{4, 4, 4, 1});
  CHECK(native::unsqueeze(u, 3).strides() == Shape{4, 4, 1, 1});
  CHECK(native::unsqueeze(u, -1).sizes() == Shape{3, 1, 4, 1});
  CHECK_THROWS_WITH(native::unsqueeze(u, 4), Contains("unsqueeze"));

  Tensor f = iota({2, 3, 4});
  CHECK(native::flatten(f, 0, -1).sizes() == Shape{24});
  CHECK(native::flatten(f, 1, 2).sizes() == Shape{2, 12});
  CHECK(native::flatten(f, 1, 2).storage() == f.storage());
  CHECK(native::flatten(native::scalar_tensor(1.0, kFloat32), 0, -1).sizes() == Shape{1});
  CHECK_THROWS_WITH(native::flatten(f, 2, 1), Contains("flatten"));
}

TEST_CASE("as_strided and alias", "[views]") {
  Tensor t = iota({6});
  Tensor w = native::as_strided(t, {2, 3}, {1, 2}, 0);
  CHECK(w.to_vector<float>() == std::vector<float>{0, 2, 4, 1, 3, 5});
  CHECK_THROWS_WITH(native::as_strided(t, {2, 3}, {3, 1}, 1), Contains("as_strided") && Contains("element 6"));

  Tensor leaf = native::zeros({2}, TensorOptions().requires_grad(true));
  Tensor a = native::alias(leaf);
  CHECK(a.storage() == leaf.storage());
  CHECK_FALSE(a.requires_grad());
}
