// Native unary, binary and ternary ops: values against PyTorch 2.x (computed with torch on
// the same inputs), PyTorch's dtype rules, in-place checks and error messages.
#include <limits>

#include "tests/tensor/native_test_util.h"

namespace brisk {
namespace {

using testing::make;
using testing::require_close;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

const std::vector<float> kX = {-2.5f, -1.0f, -0.25f, 0.0f, 0.5f, 1.0f, 3.0f};

struct UnaryCase {
  UnaryOp op;
  std::vector<double> expected;
};

TEST_CASE("unary ops match PyTorch in float32 and float64") {
  const UnaryCase cases[] = {
      {UnaryOp::Neg, {2.5, 1.0, 0.25, -0.0, -0.5, -1.0, -3.0}},
      {UnaryOp::Abs, {2.5, 1.0, 0.25, 0.0, 0.5, 1.0, 3.0}},
      {UnaryOp::Exp, {0.0820849985, 0.36787945, 0.778800786, 1.0, 1.64872122, 2.71828175, 20.085537}},
      {UnaryOp::Log, {kNaN, kNaN, kNaN, -kInf, -0.693147182, 0.0, 1.09861231}},
      {UnaryOp::Sqrt, {kNaN, kNaN, kNaN, 0.0, 0.707106769, 1.0, 1.73205078}},
      {UnaryOp::Rsqrt, {kNaN, kNaN, kNaN, kInf, 1.41421354, 1.0, 0.577350259}},
      {UnaryOp::Square, {6.25, 1.0, 0.0625, 0.0, 0.25, 1.0, 9.0}},
      {UnaryOp::Reciprocal, {-0.400000006, -1.0, -4.0, kInf, 2.0, 1.0, 0.333333343}},
      {UnaryOp::Sin, {-0.598472118, -0.841470957, -0.247403964, 0.0, 0.47942555, 0.841470957, 0.141120002}},
      {UnaryOp::Cos, {-0.801143587, 0.540302336, 0.968912423, 1.0, 0.87758255, 0.540302336, -0.989992499}},
      {UnaryOp::Sign, {-1.0, -1.0, -1.0, 0.0, 1.0, 1.0, 1.0}},
      {UnaryOp::Relu, {0.0, 0.0, 0.0, 0.0, 0.5, 1.0, 3.0}},
      {UnaryOp::Sigmoid, {0.0758581758, 0.268941432, 0.437823504, 0.5, 0.622459352, 0.731058598, 0.952574134}},
      {UnaryOp::Tanh, {-0.986614287, -0.761594176, -0.244918659, 0.0, 0.462117165, 0.761594176, 0.995054781}},
      {UnaryOp::Gelu, {-0.0155241787, -0.158655286, -0.100323431, 0.0, 0.345731199, 0.841344714, 2.99595022}},
      {UnaryOp::GeluTanh, {-0.0150842965, -0.158807993, -0.100324646, 0.0, 0.345714003, 0.841192007, 2.99636269}},
      {UnaryOp::Silu, {-0.189645454, -0.268941432, -0.109455876, 0.0, 0.311229676, 0.731058598, 2.85772252}},
  };
  for (DType dtype : {kFloat32, kFloat64}) {
    Tensor x = make(kX, {7}, dtype);
    for (const UnaryCase& c : cases) {
      INFO(op_name(c.op) << " on " << dtype_name(dtype));
      Tensor y = native::unary(c.op, x);
      REQUIRE(y.dtype() == dtype);
      require_close(y, c.expected, 1e-6);
    }
  }
}

TEST_CASE("unary ops on a strided input") {
  Tensor x = native::transpose(make<float>({1, 2, 3, 4, 5, 6}, {2, 3}), 0, 1);
  require_close(native::unary(UnaryOp::Square, x), {1, 16, 4, 25, 9, 36});
}

TEST_CASE("sigmoid is stable at extremes") {
  require_close(native::unary(UnaryOp::Sigmoid, make<float>({-100, -30, 30, 100}, {4})),
                {0.0, 9.35762359e-14, 1.0, 1.0}, 1e-6);
}

TEST_CASE("unary dtype rules follow PyTorch") {
  Tensor i = make<int64_t>({1, -2, 3}, {3});
  Tensor b = make<bool>({true, false, true}, {3});
  SECTION("float ops on integers and bools produce float32") {
    Tensor e = native::unary(UnaryOp::Exp, i);
    REQUIRE(e.dtype() == kFloat32);
    require_close(e, {2.71828175, 0.135335281, 20.085537});
    REQUIRE(native::unary(UnaryOp::Sqrt, b).dtype() == kFloat32);
    REQUIRE(native::unary(UnaryOp::Sigmoid, make<uint8_t>({1}, {1})).dtype() == kFloat32);
  }
  SECTION("abs, neg, relu, sign keep integer dtypes") {
    Tensor a = native::unary(UnaryOp::Abs, i);
    REQUIRE(a.dtype() == kInt64);
    REQUIRE(a.to_vector<int64_t>() == std::vector<int64_t>{1, 2, 3});
    REQUIRE(native::unary(UnaryOp::Neg, make<uint8_t>({1, 2}, {2})).to_vector<int64_t>() ==
            std::vector<int64_t>{255, 254});
    REQUIRE(native::unary(UnaryOp::Relu, i).to_vector<int64_t>() == std::vector<int64_t>{1, 0, 3});
    Tensor s = native::unary(UnaryOp::Sign, b);
    REQUIRE(s.dtype() == kBool);
  }
  SECTION("square of bool is int64; logical_not is bool") {
    REQUIRE(native::unary(UnaryOp::Square, b).dtype() == kInt64);
    Tensor n = native::unary(UnaryOp::LogicalNot, make<float>({0, 2, -0.0f}, {3}));
    REQUIRE(n.dtype() == kBool);
    REQUIRE(n.to_vector<bool>() == std::vector<bool>{true, false, true});
  }
  SECTION("ops PyTorch refuses") {
    REQUIRE_THROWS_WITH(native::unary(UnaryOp::Neg, b), Catch::Contains("neg") && Catch::Contains("bool"));
    REQUIRE_THROWS_WITH(native::unary(UnaryOp::Relu, b), Catch::Contains("relu") && Catch::Contains("[3] bool"));
    REQUIRE_THROWS_WITH(native::unary(UnaryOp::Gelu, i), Catch::Contains("gelu") && Catch::Contains("[3] int64"));
  }
}

TEST_CASE("16-bit floats compute through float32") {
  Tensor h = make(kX, {7}, kFloat16);
  Tensor y = native::unary(UnaryOp::Gelu, h);
  REQUIRE(y.dtype() == kFloat16);
  require_close(y, {-0.0155241787, -0.158655286, -0.100323431, 0.0, 0.345731199, 0.841344714, 2.99595022}, 2e-3);
  Tensor bf = make<float>({1.5f, -2.0f}, {2}, kBFloat16);
  Tensor sum = native::binary(BinaryOp::Add, bf, bf, {1.0});
  REQUIRE(sum.dtype() == kBFloat16);
  require_close(sum, {3.0, -4.0});
}

TEST_CASE("clamp and pow with numbers promote like PyTorch") {
  Tensor x = make(kX, {7});
  require_close(native::clamp(x, Scalar(-1.0), Scalar(0.75)), {-1.0, -1.0, -0.25, 0.0, 0.5, 0.75, 0.75});
  require_close(native::binary(BinaryOp::Pow, native::unary(UnaryOp::Abs, x), Scalar(2.5)),
                {9.88211727, 1.0, 0.03125, 0.0, 0.176776692, 1.0, 15.5884571});
  require_close(native::binary(BinaryOp::Pow, Scalar(1.5), x),
                {0.362887383, 0.666666687, 0.903602004, 1.0, 1.22474492, 1.5, 3.375});

  Tensor i = make<int64_t>({1, -2, 3}, {3});
  Tensor c = native::clamp(i, Scalar(1.5), std::nullopt);
  REQUIRE(c.dtype() == kFloat32);
  require_close(c, {1.5, 1.5, 3});
  REQUIRE(native::clamp(i, Scalar(1), std::nullopt).to_vector<int64_t>() == std::vector<int64_t>{1, 1, 3});
  REQUIRE(native::unary(UnaryOp::Clamp, i, {0.0, 2.0}).to_vector<int64_t>() == std::vector<int64_t>{1, 0, 2});
  REQUIRE(native::unary(UnaryOp::Clamp, i, {0.5, kInf}).dtype() == kFloat32);

  Tensor sq = native::binary(BinaryOp::Pow, i, Scalar(2));
  REQUIRE(sq.dtype() == kInt64);
  REQUIRE(sq.to_vector<int64_t>() == std::vector<int64_t>{1, 4, 9});
  REQUIRE(native::binary(BinaryOp::Pow, Scalar(2), i).to_vector<int64_t>() == std::vector<int64_t>{2, 0, 8});
  REQUIRE(native::binary(BinaryOp::Pow, i, Scalar(2.5)).dtype() == kFloat32);
  REQUIRE(native::binary(BinaryOp::Pow, make<bool>({true}, {1}), Scalar(2)).dtype() == kInt64);
  REQUIRE_THROWS_WITH(native::binary(BinaryOp::Pow, i, Scalar(-1)),
                      Catch::Contains("negative integer powers") && Catch::Contains("[3] int64"));
  // Tensor exponents follow integer_pow: x ** -n truncates toward zero.
  Tensor base = make<int64_t>({2, -1, 1, 0, -2, 3}, {6});
  Tensor exps = make<int64_t>({-1, -3, -2, -1, -2, 0}, {6});
  REQUIRE(native::binary(BinaryOp::Pow, base, exps).to_vector<int64_t>() == std::vector<int64_t>{0, -1, 1, 0, 0, 1});
  REQUIRE_THROWS_WITH(native::clamp(i, std::nullopt, std::nullopt), Catch::Contains("clamp"));
}

TEST_CASE("binary ops broadcast [1, 3] with [2, 1]") {
  Tensor a = make<float>({1.5f, -2.0f, 3.0f}, {1, 3});
  Tensor b = make<float>({2.0f, -0.5f}, {2, 1});
  require_close(native::binary(BinaryOp::Add, a, b, {2.0}), {5.5, 2.0, 7.0, 0.5, -3.0, 2.0});
  require_close(native::binary(BinaryOp::Sub, a, b, {1.0}), {-0.5, -4.0, 1.0, 2.0, -1.5, 3.5});
  require_close(native::binary(BinaryOp::Mul, a, b), {3.0, -4.0, 6.0, -0.75, 1.0, -1.5});
  require_close(native::binary(BinaryOp::Div, a, b), {0.75, -1.0, 1.5, -3.0, 4.0, -6.0});
  require_close(native::binary(BinaryOp::Pow, native::unary(UnaryOp::Abs, a), b),
                {2.25, 4.0, 9.0, 0.816496611, 0.707106769, 0.577350259});
  require_close(native::binary(BinaryOp::Maximum, a, b), {2.0, 2.0, 3.0, 1.5, -0.5, 3.0});
  require_close(native::binary(BinaryOp::Minimum, a, b), {1.5, -2.0, 2.0, -0.5, -2.0, -0.5});
  Tensor lt = native::binary(BinaryOp::Lt, a, b);
  REQUIRE(lt.dtype() == kBool);
  REQUIRE(lt.sizes() == Shape{2, 3});
  REQUIRE(lt.to_vector<bool>() == std::vector<bool>{true, true, false, false, true, false});
  REQUIRE_THROWS_WITH(native::binary(BinaryOp::Add, a, make<float>({1, 2}, {2}), {1.0}),
                      Catch::Contains("add") && Catch::Contains("[1, 3]") && Catch::Contains("[2]"));
}

TEST_CASE("maximum and minimum propagate NaN") {
  Tensor a = make<float>({std::nanf(""), 1.0f}, {2});
  Tensor b = make<float>({1.0f, std::nanf("")}, {2});
  require_close(native::binary(BinaryOp::Maximum, a, b), {kNaN, kNaN});
  require_close(native::binary(BinaryOp::Minimum, a, b), {kNaN, kNaN});
}

TEST_CASE("binary dtype rules follow PyTorch") {
  Tensor i = make<int64_t>({1, -2, 3}, {3});
  Tensor b = make<bool>({true, false, true}, {3});
  SECTION("integer true division gives float32") {
    Tensor d = native::binary(BinaryOp::Div, i, make<int64_t>({2, 2, 2}, {3}));
    REQUIRE(d.dtype() == kFloat32);
    require_close(d, {0.5, -1.0, 1.5});
  }
  SECTION("numbers promote by category only") {
    REQUIRE(native::binary(BinaryOp::Mul, make<int32_t>({1}, {1}), Scalar(2.5)).dtype() == kFloat32);
    REQUIRE(native::binary(BinaryOp::Add, b, Scalar(5), {1.0}).to_vector<int64_t>() == std::vector<int64_t>{6, 5, 6});
    Tensor u = native::binary(BinaryOp::Add, make<uint8_t>({0, 0}, {2}), Scalar(300), {1.0});
    REQUIRE(u.dtype() == kUInt8);
    REQUIRE(u.to_vector<int64_t>() == std::vector<int64_t>{44, 44});
    require_close(native::binary(BinaryOp::Sub, Scalar(10), i, {1.0}), {9, 12, 7});
    REQUIRE(native::binary(BinaryOp::Eq, i, Scalar(1.0)).to_vector<bool>() == std::vector<bool>{true, false, false});
  }
  SECTION("bool arithmetic") {
    REQUIRE(native::binary(BinaryOp::Add, b, b, {1.0}).dtype() == kBool);
    REQUIRE(native::binary(BinaryOp::Mul, b, b).to_vector<bool>() == std::vector<bool>{true, false, true});
    REQUIRE(native::binary(BinaryOp::LogicalOr, i, make<float>({0, 0, 0}, {3})).to_vector<bool>() ==
            std::vector<bool>{true, true, true});
    REQUIRE_THROWS_WITH(native::binary(BinaryOp::Sub, b, b, {1.0}), Catch::Contains("sub") && Catch::Contains("bool"));
  }
  SECTION("alpha must be whole for integers") {
    REQUIRE_THROWS_WITH(native::binary(BinaryOp::Add, i, i, {1.5}),
                        Catch::Contains("alpha") && Catch::Contains("[3] int64"));
  }
}

TEST_CASE("in-place binary ops") {
  SECTION("into self, with broadcasting of the other operand") {
    Tensor x = make<float>({1, 2, 3, 4, 5, 6}, {2, 3});
    native::binary_(BinaryOp::Add, x, make<float>({10, 20, 30}, {3}), {1.0});
    require_close(x, {11, 22, 33, 14, 25, 36});
    native::binary_(BinaryOp::Mul, x, Scalar(2));
    require_close(x, {22, 44, 66, 28, 50, 72});
  }
  SECTION("a result that cannot be cast to self's dtype is refused like PyTorch") {
    Tensor i = make<int64_t>({1, 2}, {2});
    REQUIRE_THROWS_WITH(native::binary_(BinaryOp::Add, i, Scalar(1.5), {1.0}),
                        Catch::Contains("result type Float can't be cast to the desired output type Long"));
    REQUIRE_THROWS_WITH(native::binary_(BinaryOp::Div, i, i), Catch::Contains("can't be cast"));
  }
  SECTION("self must have the broadcast shape") {
    Tensor x = make<float>({1, 2, 3}, {3});
    REQUIRE_THROWS_WITH(native::binary_(BinaryOp::Add, x, native::zeros({2, 3}), {1.0}),
                        Catch::Contains("add") && Catch::Contains("[3]") && Catch::Contains("[2, 3]"));
  }
  SECTION("computing in a wider dtype casts back into self") {
    Tensor u = make<uint8_t>({250, 10}, {2});
    native::binary_(BinaryOp::Add, u, make<int64_t>({10, 5}, {2}), {1.0});
    REQUIRE(u.to_vector<int64_t>() == std::vector<int64_t>{4, 15});
    Tensor c = make<int64_t>({0, 1, 2}, {3});
    native::binary_(BinaryOp::Lt, c, Scalar(1.5));
    REQUIRE(c.to_vector<int64_t>() == std::vector<int64_t>{1, 1, 0});
  }
  SECTION("an operand overlapping self is read before it is overwritten") {
    Tensor x = make<float>({1, 2, 3, 4}, {2, 2});
    Tensor xt = native::transpose(x, 0, 1);
    native::binary_(BinaryOp::Add, x, xt, {1.0});
    require_close(x, {2, 5, 5, 8});
  }
  SECTION("unary in place") {
    Tensor x = make<float>({-1, 2}, {2});
    native::unary_(UnaryOp::Relu, x);
    require_close(x, {0, 2});
    Tensor i = make<int64_t>({1}, {1});
    REQUIRE_THROWS_WITH(native::unary_(UnaryOp::Exp, i), Catch::Contains("exp") && Catch::Contains("can't be cast"));
  }
}

TEST_CASE("where, masked_fill and the ternary ops") {
  Tensor cond = make<bool>({true, false, true}, {3});
  SECTION("where broadcasts and promotes") {
    Tensor w = native::where(cond, make<int64_t>({1, 2, 3}, {3}), make<double>({-1.5}, {}));
    REQUIRE(w.dtype() == kFloat64);
    require_close(w, {1, -1.5, 3});
    Tensor w2 = native::where(native::view(cond, {3, 1}), make<float>({1, 2}, {2}), make<float>({0}, {1}));
    REQUIRE(w2.sizes() == Shape{3, 2});
    require_close(w2, {1, 2, 0, 0, 1, 2});
    REQUIRE_THROWS_WITH(native::where(make<int64_t>({1}, {1}), cond, cond),
                        Catch::Contains("where") && Catch::Contains("[1] int64"));
  }
  SECTION("masked_fill casts the value to the tensor's dtype") {
    Tensor m = native::masked_fill(make<int64_t>({1, -2, 3}, {3}), cond, Scalar(2.5));
    REQUIRE(m.dtype() == kInt64);
    REQUIRE(m.to_vector<int64_t>() == std::vector<int64_t>{2, -2, 2});
    Tensor u = native::masked_fill(make<uint8_t>({0, 0}, {2}), make<bool>({true, false}, {2}), Scalar(-1));
    REQUIRE(u.to_vector<int64_t>() == std::vector<int64_t>{255, 0});
    REQUIRE_THROWS_WITH(native::masked_fill(cond, make<int64_t>({1, 1, 1}, {3}), Scalar(1)),
                        Catch::Contains("masked_fill") && Catch::Contains("int64"));
    Tensor x = make<float>({1, 2, 3, 4, 5, 6}, {2, 3});
    native::masked_fill_(x, cond, Scalar(-1e9));
    require_close(x, {-1e9, 2, -1e9, -1e9, 5, -1e9});
  }
  SECTION("clamp with tensor bounds") {
    Tensor x = make<float>({0.5f, 1.0f, 5.0f}, {3});
    require_close(native::ternary(TernaryOp::Clamp, x, make<float>({std::nanf(""), 0, 0}, {3}), make<float>({3}, {1})),
                  {kNaN, 1, 3});
  }
  SECTION("addcmul and addcdiv") {
    Tensor a = make<float>({1, 2}, {2});
    Tensor b = make<float>({3, 4}, {2});
    Tensor c = make<float>({2, 8}, {2});
    require_close(native::ternary(TernaryOp::Addcmul, a, b, c, {0.5}), {4, 18});
    require_close(native::ternary(TernaryOp::Addcdiv, a, b, c, {2.0}), {4, 3});
    native::ternary_(TernaryOp::Addcmul, a, b, b, {1.0});
    require_close(a, {10, 18});
    Tensor i = make<int64_t>({1}, {1});
    REQUIRE_THROWS_WITH(native::ternary(TernaryOp::Addcdiv, i, i, i), Catch::Contains("addcdiv"));
  }
}

TEST_CASE("fused backward ops match PyTorch's gradients") {
  // grad_input of relu/sigmoid/tanh/gelu/silu at kX for this upstream gradient, from torch.autograd.
  Tensor x = make(kX, {7});
  Tensor g = make<float>({0.5f, -1.0f, 2.0f, 1.5f, -0.75f, 1.0f, 0.25f}, {7});
  require_close(native::binary(BinaryOp::ReluBackward, g, x), {0.0, 0.0, 0.0, 0.0, -0.75, 1.0, 0.25});
  require_close(native::binary(BinaryOp::SigmoidBackward, g, native::unary(UnaryOp::Sigmoid, x)),
                {0.0350518562, -0.196611941, 0.492268145, 0.375, -0.176252782, 0.196611926, 0.0112941638}, 1e-5);
  require_close(native::binary(BinaryOp::TanhBackward, g, native::unary(UnaryOp::Tanh, x)),
                {0.0132961245, -0.419974297, 1.88002968, 1.5, -0.589835763, 0.419974297, 0.00246649538}, 1e-5);
  require_close(native::binary(BinaryOp::GeluBackward, g, x),
                {-0.0188055336, 0.0833154321, 0.609253407, 0.75, -0.650621295, 1.08331537, 0.252986401}, 1e-5);
  require_close(native::binary(BinaryOp::GeluTanhBackward, g, x),
                {-0.018975826, 0.0829640925, 0.609291792, 0.75, -0.650527418, 1.08296406, 0.25289607}, 1e-5);
  require_close(native::binary(BinaryOp::SiluBackward, g, x),
                {-0.0497005545, -0.0723294839, 0.752579987, 0.75, -0.55497086, 0.927670538, 0.272026032}, 1e-5);
}

TEST_CASE("fill_") {
  Tensor x = native::empty({2, 2}, kInt32);
  native::fill_(x, Scalar(7));
  REQUIRE(x.to_vector<int64_t>() == std::vector<int64_t>{7, 7, 7, 7});
  Tensor u = native::empty({2}, kUInt8);
  native::fill_(u, Scalar(-1));
  REQUIRE(u.to_vector<int64_t>() == std::vector<int64_t>{255, 255});
  REQUIRE_THROWS_WITH(native::fill_(u, Scalar(256)),
                      Catch::Contains("fill_") && Catch::Contains("256") && Catch::Contains("uint8"));
  Tensor h = native::empty({1}, kFloat16);
  REQUIRE_THROWS_WITH(native::fill_(h, Scalar(1e6)), Catch::Contains("float16"));
  Tensor big = native::empty({2}, kInt64);
  const int64_t large = (int64_t(1) << 62) + 1;  // not representable in float64
  native::fill_(big, Scalar(large));
  REQUIRE(big.to_vector<int64_t>() == std::vector<int64_t>{large, large});
  Tensor base = native::zeros({6});
  Tensor strided = native::slice(base, 0, 0, 6, 2);
  native::fill_(strided, Scalar(1.5));
  require_close(base, {1.5, 0, 1.5, 0, 1.5, 0});
}

TEST_CASE("large elementwise ops use every thread and stay correct") {
  const int64_t n = 200003;
  Tensor a = native::arange(0, n, 1, kFloat32);
  Tensor y = native::binary(BinaryOp::Mul, a, Scalar(2.0));
  std::vector<float> v = y.to_vector<float>();
  for (int64_t i = 0; i < n; i += 9973) REQUIRE(v[i] == 2.0f * i);
  REQUIRE(v[n - 1] == 2.0f * (n - 1));
}

}  // namespace
}  // namespace brisk
