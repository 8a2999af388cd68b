// torch.result_type and the in-place casting rule, against a table computed with PyTorch
// 2.x (torch.result_type over tensors of every dtype pair, each dimensioned or 0-dim, and
// over a tensor and a Python float, int or bool).
#include "tensor/native/operands.h"
#include "tests/tensor/native_test_util.h"

namespace brisk {
namespace {

constexpr DType f32 = kFloat32, f64 = kFloat64, i64 = kInt64, i32 = kInt32, u8 = kUInt8, b8 = kBool, bf16 = kBFloat16,
                f16 = kFloat16;

Tensor operand(DType dtype, bool dimensioned) { return native::zeros(dimensioned ? Shape{2} : Shape{}, dtype); }

struct TensorCase {
  DType a;
  int a_dims;
  DType b;
  int b_dims;
  DType expected;
};

struct ScalarCase {
  DType a;
  int a_dims;
  Scalar b;
  DType expected;
};

TEST_CASE("result_type of a dimensioned and a 0-dim tensor matches torch.result_type") {
  // A 0-dim tensor changes the result only when it is of a higher category (bool < int < float).
  const TensorCase cases[] = {
      {f32, 1, f32, 0, f32},   {f32, 1, f64, 0, f32},   {f32, 1, i64, 0, f32},    {f32, 1, i32, 0, f32},
      {f32, 1, u8, 0, f32},    {f32, 1, b8, 0, f32},    {f32, 1, bf16, 0, f32},   {f32, 1, f16, 0, f32},
      {f64, 1, f32, 0, f64},   {f64, 1, f64, 0, f64},   {f64, 1, i64, 0, f64},    {f64, 1, i32, 0, f64},
      {f64, 1, u8, 0, f64},    {f64, 1, b8, 0, f64},    {f64, 1, bf16, 0, f64},   {f64, 1, f16, 0, f64},
      {i64, 1, f32, 0, f32},   {i64, 1, f64, 0, f64},   {i64, 1, i64, 0, i64},    {i64, 1, i32, 0, i64},
      {i64, 1, u8, 0, i64},    {i64, 1, b8, 0, i64},    {i64, 1, bf16, 0, bf16},  {i64, 1, f16, 0, f16},
      {i32, 1, f32, 0, f32},   {i32, 1, f64, 0, f64},   {i32, 1, i64, 0, i32},    {i32, 1, i32, 0, i32},
      {i32, 1, u8, 0, i32},    {i32, 1, b8, 0, i32},    {i32, 1, bf16, 0, bf16},  {i32, 1, f16, 0, f16},
      {u8, 1, f32, 0, f32},    {u8, 1, f64, 0, f64},    {u8, 1, i64, 0, u8},      {u8, 1, i32, 0, u8},
      {u8, 1, u8, 0, u8},      {u8, 1, b8, 0, u8},      {u8, 1, bf16, 0, bf16},   {u8, 1, f16, 0, f16},
      {b8, 1, f32, 0, f32},    {b8, 1, f64, 0, f64},    {b8, 1, i64, 0, i64},     {b8, 1, i32, 0, i32},
      {b8, 1, u8, 0, u8},      {b8, 1, b8, 0, b8},      {b8, 1, bf16, 0, bf16},   {b8, 1, f16, 0, f16},
      {bf16, 1, f32, 0, bf16}, {bf16, 1, f64, 0, bf16}, {bf16, 1, i64, 0, bf16},  {bf16, 1, i32, 0, bf16},
      {bf16, 1, u8, 0, bf16},  {bf16, 1, b8, 0, bf16},  {bf16, 1, bf16, 0, bf16}, {bf16, 1, f16, 0, bf16},
      {f16, 1, f32, 0, f16},   {f16, 1, f64, 0, f16},   {f16, 1, i64, 0, f16},    {f16, 1, i32, 0, f16},
      {f16, 1, u8, 0, f16},    {f16, 1, b8, 0, f16},    {f16, 1, bf16, 0, f16},   {f16, 1, f16, 0, f16},
      {f32, 0, f32, 1, f32},   {f32, 0, f64, 1, f64},   {f32, 0, i64, 1, f32},    {f32, 0, i32, 1, f32},
      {f32, 0, u8, 1, f32},    {f32, 0, b8, 1, f32},    {f32, 0, bf16, 1, bf16},  {f32, 0, f16, 1, f16},
      {f64, 0, f32, 1, f32},   {f64, 0, f64, 1, f64},   {f64, 0, i64, 1, f64},    {f64, 0, i32, 1, f64},
      {f64, 0, u8, 1, f64},    {f64, 0, b8, 1, f64},    {f64, 0, bf16, 1, bf16},  {f64, 0, f16, 1, f16},
      {i64, 0, f32, 1, f32},   {i64, 0, f64, 1, f64},   {i64, 0, i64, 1, i64},    {i64, 0, i32, 1, i32},
      {i64, 0, u8, 1, u8},     {i64, 0, b8, 1, i64},    {i64, 0, bf16, 1, bf16},  {i64, 0, f16, 1, f16},
      {i32, 0, f32, 1, f32},   {i32, 0, f64, 1, f64},   {i32, 0, i64, 1, i64},    {i32, 0, i32, 1, i32},
      {i32, 0, u8, 1, u8},     {i32, 0, b8, 1, i32},    {i32, 0, bf16, 1, bf16},  {i32, 0, f16, 1, f16},
      {u8, 0, f32, 1, f32},    {u8, 0, f64, 1, f64},    {u8, 0, i64, 1, i64},     {u8, 0, i32, 1, i32},
      {u8, 0, u8, 1, u8},      {u8, 0, b8, 1, u8},      {u8, 0, bf16, 1, bf16},   {u8, 0, f16, 1, f16},
      {b8, 0, f32, 1, f32},    {b8, 0, f64, 1, f64},    {b8, 0, i64, 1, i64},     {b8, 0, i32, 1, i32},
      {b8, 0, u8, 1, u8},      {b8, 0, b8, 1, b8},      {b8, 0, bf16, 1, bf16},   {b8, 0, f16, 1, f16},
      {bf16, 0, f32, 1, f32},  {bf16, 0, f64, 1, f64},  {bf16, 0, i64, 1, bf16},  {bf16, 0, i32, 1, bf16},
      {bf16, 0, u8, 1, bf16},  {bf16, 0, b8, 1, bf16},  {bf16, 0, bf16, 1, bf16}, {bf16, 0, f16, 1, f16},
      {f16, 0, f32, 1, f32},   {f16, 0, f64, 1, f64},   {f16, 0, i64, 1, f16},    {f16, 0, i32, 1, f16},
      {f16, 0, u8, 1, f16},    {f16, 0, b8, 1, f16},    {f16, 0, bf16, 1, bf16},  {f16, 0, f16, 1, f16},
  };
  for (const TensorCase& c : cases) {
    INFO(dtype_name(c.a) << (c.a_dims ? " [2]" : " []") << " with " << dtype_name(c.b) << (c.b_dims ? " [2]" : " []"));
    REQUIRE(native::result_type(operand(c.a, c.a_dims), operand(c.b, c.b_dims)) == c.expected);
  }
}

TEST_CASE("result_type of a tensor and a number matches torch.result_type") {
  // A Python float counts as float32, an int as int64, by category only.
  const ScalarCase cases[] = {
      {f32, 1, Scalar(2.5), f32},   {f32, 1, Scalar(int64_t(3)), f32},   {f32, 1, Scalar(true), f32},
      {f32, 0, Scalar(2.5), f32},   {f32, 0, Scalar(int64_t(3)), f32},   {f32, 0, Scalar(true), f32},
      {f64, 1, Scalar(2.5), f64},   {f64, 1, Scalar(int64_t(3)), f64},   {f64, 1, Scalar(true), f64},
      {f64, 0, Scalar(2.5), f64},   {f64, 0, Scalar(int64_t(3)), f64},   {f64, 0, Scalar(true), f64},
      {i64, 1, Scalar(2.5), f32},   {i64, 1, Scalar(int64_t(3)), i64},   {i64, 1, Scalar(true), i64},
      {i64, 0, Scalar(2.5), f32},   {i64, 0, Scalar(int64_t(3)), i64},   {i64, 0, Scalar(true), i64},
      {i32, 1, Scalar(2.5), f32},   {i32, 1, Scalar(int64_t(3)), i32},   {i32, 1, Scalar(true), i32},
      {i32, 0, Scalar(2.5), f32},   {i32, 0, Scalar(int64_t(3)), i32},   {i32, 0, Scalar(true), i32},
      {u8, 1, Scalar(2.5), f32},    {u8, 1, Scalar(int64_t(3)), u8},     {u8, 1, Scalar(true), u8},
      {u8, 0, Scalar(2.5), f32},    {u8, 0, Scalar(int64_t(3)), u8},     {u8, 0, Scalar(true), u8},
      {b8, 1, Scalar(2.5), f32},    {b8, 1, Scalar(int64_t(3)), i64},    {b8, 1, Scalar(true), b8},
      {b8, 0, Scalar(2.5), f32},    {b8, 0, Scalar(int64_t(3)), i64},    {b8, 0, Scalar(true), b8},
      {bf16, 1, Scalar(2.5), bf16}, {bf16, 1, Scalar(int64_t(3)), bf16}, {bf16, 1, Scalar(true), bf16},
      {bf16, 0, Scalar(2.5), bf16}, {bf16, 0, Scalar(int64_t(3)), bf16}, {bf16, 0, Scalar(true), bf16},
      {f16, 1, Scalar(2.5), f16},   {f16, 1, Scalar(int64_t(3)), f16},   {f16, 1, Scalar(true), f16},
      {f16, 0, Scalar(2.5), f16},   {f16, 0, Scalar(int64_t(3)), f16},   {f16, 0, Scalar(true), f16},
  };
  for (const ScalarCase& c : cases) {
    INFO(dtype_name(c.a) << (c.a_dims ? " [2]" : " []") << " with a number of dtype " << dtype_name(c.b.dtype()));
    REQUIRE(native::result_type(operand(c.a, c.a_dims), c.b) == c.expected);
  }
}

TEST_CASE("result_type over several operands") {
  // Checked with the dtype of torch.addcmul / torch.where over the same operands.
  REQUIRE(native::result_type({operand(i32, 1), operand(i64, 0), operand(f64, 0)}) == f64);
  REQUIRE(native::result_type({operand(u8, 1), operand(b8, 1), operand(i64, 0)}) == u8);
  REQUIRE(native::result_type({operand(f16, 1), operand(f64, 0), operand(i64, 1)}) == f16);
  REQUIRE(native::result_type({operand(i32, 0), operand(i64, 0)}) == i64);
  REQUIRE(native::result_type({operand(i32, 1)}, {Scalar(0), Scalar(2.5)}) == f32);
  REQUIRE(native::result_type({operand(i32, 1), Tensor()}, {Scalar(0)}) == i32);
}

TEST_CASE("can_cast follows PyTorch: no float to integral, nothing but bool to bool") {
  using native::detail::can_cast;
  REQUIRE(can_cast(i64, f32));
  REQUIRE(can_cast(f64, f16));
  REQUIRE(can_cast(b8, u8));
  REQUIRE(can_cast(i64, u8));
  REQUIRE_FALSE(can_cast(f32, i64));
  REQUIRE_FALSE(can_cast(f16, b8));
  REQUIRE_FALSE(can_cast(i32, b8));
  REQUIRE(can_cast(b8, b8));
}

TEST_CASE("common_device accepts tensors on one device") {
  REQUIRE(native::common_device("add", {operand(f32, 1), operand(i64, 0)}) == kCPU);
  REQUIRE_THROWS_WITH(native::common_device("add", {Tensor()}), Catch::Contains("add"));
}

}  // namespace
}  // namespace brisk
