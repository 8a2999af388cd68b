// The CUDA backend's elementwise kernels (cuda/elementwise.cu, cuda/loops.cu.h) against the
// CPU backend: every op, every dtype the CPU accepts (and the same refusals), contiguous
// inputs of sizes that leave vector tails, misaligned, transposed and broadcast operands,
// and in-place updates.
#include "tests/cuda/backend_test_util.h"

namespace brisk {
namespace {

using testing::on_cpu;
using testing::on_gpu;
using testing::random_cpu;
using testing::require_matches;
using testing::require_same_behavior;

struct UnaryCase {
  UnaryOp op;
  OpParams params;
};

// Every op of tensor/op_table.h, so a new row is compared with the CPU without a new test;
// the ops that take numbers (clamp, pow) run with 0.5 and 2.0 and with the numbers that pick
// other code paths.
const std::vector<UnaryCase>& unary_cases() {
  static const std::vector<UnaryCase> cases{
#define BRISK_UNARY_CASE(Op, ...) {UnaryOp::Op, {0.5, 2.0}},
      BRISK_UNARY_OPS(BRISK_UNARY_CASE)
#undef BRISK_UNARY_CASE
          {UnaryOp::Clamp, {-0.5, 0.75}},
      {UnaryOp::Clamp, {-1, 1}},
      {UnaryOp::PowScalar, {3.0}},
      {UnaryOp::PowScalar, {2.0}},
      {UnaryOp::PowScalar, {0.5}},
      {UnaryOp::PowScalar, {-1.0}},
      {UnaryOp::PowScalar, {1.7}},
      {UnaryOp::RPowScalar, {1.5}},
      {UnaryOp::RPowScalar, {2.0}},
  };
  return cases;
}

const std::vector<BinaryOp>& binary_ops() {
  static const std::vector<BinaryOp> ops{
#define BRISK_BINARY_CASE(Op, ...) BinaryOp::Op,
      BRISK_BINARY_OPS(BRISK_BINARY_CASE)
#undef BRISK_BINARY_CASE
  };
  return ops;
}

// Operands of the same values in the layouts the launch helper treats differently.
struct Layout {
  const char* name;
  std::function<Tensor(const Tensor&)> view;  // from a [64, 67] tensor
};

const std::vector<Layout>& layouts() {
  static const std::vector<Layout> all{
      {"contiguous", [](const Tensor& t) { return t; }},
      {"misaligned by one element",
       [](const Tensor& t) { return native::narrow(native::flatten(t, 0, -1), 0, 1, 4000); }},
      {"transposed", [](const Tensor& t) { return native::transpose(t, 0, 1); }},
      {"every other column", [](const Tensor& t) { return native::slice(t, 1, 0, std::nullopt, 2); }},
  };
  return all;
}

TEST_CASE("unary ops match the CPU for every dtype and layout", "[gpu]") {
  uint64_t seed = 1;
  for (DType dtype : testing::all_dtypes()) {
    for (const Layout& layout : layouts()) {
      for (const UnaryCase& c : unary_cases()) {
        INFO(op_name(c.op) << "(" << c.params.a << ", " << c.params.b << ") on " << dtype_name(dtype) << ", "
                           << layout.name);
        Tensor x = layout.view(random_cpu({64, 67}, dtype, ++seed, -3.0, 3.0));
        // Compared within the tolerance of the result's dtype: exp of int64 is float32 and
        // differs from the CPU's by CUDA's expf error (2 ulp) plus the CPU's (1 ulp).
        require_same_behavior([&](const std::vector<Tensor>& in) { return native::unary(c.op, in[0], c.params); }, {x});
      }
    }
  }
}

TEST_CASE("large unary and binary ops take the vectorized path and its tail", "[gpu]") {
  for (DType dtype : {kFloat32, kBFloat16, kFloat16, kFloat64}) {
    INFO(dtype_name(dtype));
    // Not a multiple of any vector width, and more elements than one grid-stride pass.
    Tensor a = random_cpu({(1 << 22) + 3}, dtype, 7);
    Tensor b = random_cpu({(1 << 22) + 3}, dtype, 8);
    Tensor ga = on_gpu(a), gb = on_gpu(b);
    require_matches(native::unary(UnaryOp::Tanh, ga), native::unary(UnaryOp::Tanh, a));
    require_matches(native::binary(BinaryOp::Mul, ga, gb), native::binary(BinaryOp::Mul, a, b));
    require_matches(native::binary(BinaryOp::Lt, ga, gb), native::binary(BinaryOp::Lt, a, b));
  }
}

TEST_CASE("binary ops match the CPU for every dtype, with broadcasting and strides", "[gpu]") {
  uint64_t seed = 100;
  for (DType dtype : testing::all_dtypes()) {
    for (BinaryOp op : binary_ops()) {
      INFO(op_name(op) << " on " << dtype_name(dtype));
      Tensor a = random_cpu({33, 40}, dtype, ++seed, -3.0, 3.0);
      Tensor b = random_cpu({33, 40}, dtype, ++seed, -3.0, 3.0);
      Tensor row = random_cpu({40}, dtype, ++seed, -3.0, 3.0);
      Tensor column = random_cpu({33, 1}, dtype, ++seed, -3.0, 3.0);
      auto run = [op](const std::vector<Tensor>& in) { return native::binary(op, in[0], in[1], {0.5, 0}); };
      require_same_behavior(run, {a, b});
      require_same_behavior(run, {a, row});
      require_same_behavior(run, {column, row});
      require_same_behavior(run, {native::transpose(random_cpu({40, 33}, dtype, ++seed), 0, 1), b});
      require_same_behavior([op](const std::vector<Tensor>& in) { return native::binary(op, in[0], Scalar(2)); }, {a});
    }
  }
}

TEST_CASE("ternary ops, where and masked_fill match the CPU", "[gpu]") {
  uint64_t seed = 500;
  for (DType dtype : testing::all_dtypes()) {
    INFO(dtype_name(dtype));
    Tensor x = random_cpu({20, 31}, dtype, ++seed, -3.0, 3.0);
    Tensor lo = random_cpu({31}, dtype, ++seed, -3.0, 0.0);
    Tensor hi = random_cpu({20, 1}, dtype, ++seed, 0.0, 3.0);
    Tensor c = random_cpu({20, 31}, dtype, ++seed, 0.5, 3.0);
    Tensor mask = random_cpu({20, 31}, kBool, ++seed);
    for (TernaryOp op : {TernaryOp::Clamp, TernaryOp::Addcmul, TernaryOp::Addcdiv}) {
      INFO(op_name(op));
      require_same_behavior(
          [op](const std::vector<Tensor>& in) {
            return native::ternary(op, in[0], in[1], in[2], {0.5, 0});
          },
          {x, lo, hi});
      require_same_behavior(
          [op](const std::vector<Tensor>& in) {
            return native::ternary(op, in[0], in[1], in[2], {0.5, 0});
          },
          {x, c, native::transpose(random_cpu({31, 20}, dtype, 77, 0.5, 3.0), 0, 1)});
    }
    require_same_behavior([](const std::vector<Tensor>& in) { return native::where(in[0], in[1], in[2]); },
                          {mask, x, lo});
    require_same_behavior([](const std::vector<Tensor>& in) { return native::masked_fill(in[0], in[1], 1); },
                          {x, mask});
  }
}

TEST_CASE("in-place ops and fills write the GPU tensor itself", "[gpu]") {
  Tensor x = random_cpu({50, 60}, kFloat32, 3);
  Tensor g = on_gpu(x);
  Tensor view = native::transpose(g, 0, 1);
  native::unary_(UnaryOp::Sigmoid, view);
  native::unary_(UnaryOp::Sigmoid, x);
  require_matches(g, x);

  Tensor h = native::empty({1000, 3}, TensorOptions(kFloat16).device(testing::kCuda));
  native::fill_(h, 0.1);
  require_matches(h, native::full({1000, 3}, 0.1, kFloat16));
  Tensor column = native::select(h, 1, 2);
  native::fill_(column, -4);
  Tensor want = native::full({1000, 3}, 0.1, kFloat16);
  Tensor want_column = native::select(want, 1, 2);
  native::fill_(want_column, -4);
  require_matches(h, want);

  Tensor ints = on_gpu(random_cpu({123}, kInt64, 4, -100, 100));
  Tensor ints_cpu = on_cpu(ints);
  native::binary_(BinaryOp::Add, ints, Scalar(7), {1, 0});
  native::binary_(BinaryOp::Add, ints_cpu, Scalar(7), {1, 0});
  require_matches(ints, ints_cpu);
}

TEST_CASE("empty tensors and 0-dim tensors go through the CUDA kernels", "[gpu]") {
  Tensor e = native::empty({0, 5}, TensorOptions(kFloat32).device(testing::kCuda));
  CHECK(native::unary(UnaryOp::Exp, e).sizes() == Shape{0, 5});
  Tensor s = on_gpu(native::scalar_tensor(2.5, kFloat32));
  require_matches(native::binary(BinaryOp::Mul, s, s), native::scalar_tensor(6.25, kFloat32));
}

TEST_CASE("special values follow the CPU: NaN, infinities, signed zeros", "[gpu]") {
  std::vector<float> values{0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, 1e-40f, 88.8f, -104.0f};
  Tensor x = native::from_vector(values, {10}, kFloat32);
  for (const UnaryCase& c : unary_cases()) {
    INFO(op_name(c.op));
    require_same_behavior([&](const std::vector<Tensor>& in) { return native::unary(c.op, in[0], c.params); }, {x});
  }
  Tensor y = native::from_vector(std::vector<float>{NAN, 2.0f, -INFINITY, 0.0f, NAN, 1.0f, 3.0f, -0.0f, 5.0f, 1.0f},
                                 {10}, kFloat32);
  for (BinaryOp op : {BinaryOp::Maximum, BinaryOp::Minimum, BinaryOp::Pow, BinaryOp::Div, BinaryOp::Eq}) {
    INFO(op_name(op));
    require_same_behavior([op](const std::vector<Tensor>& in) { return native::binary(op, in[0], in[1]); }, {x, y});
  }
}

}  // namespace
}  // namespace brisk
