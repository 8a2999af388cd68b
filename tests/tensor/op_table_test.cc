// The promise of tensor/op_table.h and docs/extending.md (d): a row of the math, activation or
// comparison lists is an op end to end, with nothing else written but its functor and its
// derivative. Every row of those lists is read here from the table itself, so a new row is
// checked without a change to this file: its generated function and Tensor method run its
// kernel, its Result column gives the dtype of integer and bool inputs (or the error), its
// CpuCast and CudaCast columns are what autocast does (the CUDA column on the simulated
// device), and its gradient and second derivative pass gradcheck in float64. Every row of
// every elementwise list, the others included, is one profiled op under its name and runs on
// the simulated device as on the CPU.
#include <catch2/catch.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "autograd/autocast.h"
#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "profiler/profiler.h"
#include "tensor/dispatch.h"
#include "tensor/native/ops.h"

namespace brisk {
namespace {

using autograd::AutocastPolicy;
using autograd::CastPolicy;
using Fn = std::function<Tensor(const Tensor&)>;

template <typename... Ts>
bool accepts(TypeList<Ts...>, DType dtype) {
  return detail::contains<Ts...>(dtype);
}

struct UnaryRow {
  UnaryOp op;
  std::string name;
  ResultKind result;
  AutocastPolicy cast;
  bool takes_int64, takes_bool;
  Fn function, method;  // no method for the rows that take numbers
  Fn kernel;            // the native op, with the function's default numbers
  Fn inplace;           // the in-place method on a copy of x; none for the rows that take numbers
};

// clang-format off
#define BRISK_UNARY_ROW(Op, name, Functor, DTypes, Result, CpuCast, CudaCast, ...)                           \
  {UnaryOp::Op, #name, ResultKind::Result, {CastPolicy::CpuCast, CastPolicy::CudaCast},                   \
   accepts(DTypes{}, kInt64), accepts(DTypes{}, kBool),                                                    \
   [](const Tensor& x) { return brisk::name(x); }, [](const Tensor& x) { return x.name(); },             \
   [](const Tensor& x) { return native::unary(UnaryOp::Op, x); },                                         \
   [](const Tensor& x) {                                                                                  \
     Tensor y = x * 1.0;                                                                                  \
     Tensor& same = y.name##_();                                                                          \
     return same.is_same(y) ? same : Tensor();                                                            \
   }},
#define BRISK_NUMBERS_ROW(Op, name, Functor, DTypes, Result, CpuCast, CudaCast, Saved, numbers, params)       \
  {UnaryOp::Op, #name, ResultKind::Result, {CastPolicy::CpuCast, CastPolicy::CudaCast},                   \
   accepts(DTypes{}, kInt64), accepts(DTypes{}, kBool), [](const Tensor& x) { return brisk::name(x); }, nullptr, \
   [](const Tensor& x, BRISK_ROW_UNPAREN numbers) { return native::unary(UnaryOp::Op, x, {BRISK_ROW_UNPAREN params}); }, nullptr},
// clang-format on

// The rows whose functions are generated: the math rows and the activations.
const std::vector<UnaryRow>& unary_rows() {
  static const std::vector<UnaryRow> rows = {BRISK_UNARY_MATH_OPS(BRISK_UNARY_ROW) BRISK_ACTIVATION_OPS(
      BRISK_UNARY_ROW) BRISK_ACTIVATION_OPS_WITH_NUMBERS(BRISK_NUMBERS_ROW)};
  return rows;
}
#undef BRISK_UNARY_ROW
#undef BRISK_NUMBERS_ROW

// Values in [0.5, 1.5]: inside every row's domain (log, sqrt, rsqrt, reciprocal) and away from
// every kink (relu, leaky_relu and elu at 0, hardswish at +-3).
Tensor inputs(TensorOptions options) { return rand({2, 3}, options.dtype(kFloat64)) + 0.5; }

// The dtype a row computes for an input of `dtype`, by its Result column, or nullopt when it
// refuses the input. The float32 a Float row computes integers in is accepted by every row.
std::optional<DType> expected_dtype(const UnaryRow& row, DType dtype) {
  bool takes = dtype == kBool ? row.takes_bool : row.takes_int64;
  switch (row.result) {
    case ResultKind::Bool: return kBool;
    case ResultKind::Float: return kFloat32;
    case ResultKind::Same: return takes ? std::optional<DType>(dtype) : std::nullopt;
    case ResultKind::SameNotBool:
    case ResultKind::Negation: return dtype != kBool && takes ? std::optional<DType>(dtype) : std::nullopt;
    case ResultKind::BoolAsInt64: return dtype == kBool ? kInt64 : dtype;
    case ResultKind::Floating:
    case ResultKind::NumberPromoted: return std::nullopt;
  }
  return std::nullopt;
}

TEST_CASE("op table: each generated function and Tensor method runs its row's kernel") {
  Tensor x = inputs({}).to(kFloat32);
  for (const UnaryRow& row : unary_rows()) {
    INFO(row.name);
    Tensor expected = row.kernel(x);
    CHECK(equal(row.function(x), expected));
    if (row.method) CHECK(equal(row.method(x), expected));
  }
}

TEST_CASE("op table: integer and bool inputs get the dtype of the Result column, or its error") {
  Tensor ints = tensor<int64_t>({-2, 0, 3}), bools = tensor<bool>({true, false, true});
  for (const UnaryRow& row : unary_rows()) {
    for (const Tensor& x : {ints, bools}) {
      INFO(row.name << " of " << x.describe());
      std::optional<DType> dtype = expected_dtype(row, x.dtype());
      if (dtype) {
        CHECK(row.function(x).dtype() == *dtype);
      } else {
        CHECK_THROWS_WITH(row.function(x), Catch::Contains(row.name));
      }
    }
  }
  // The refusals that say more than the dtype.
  CHECK_THROWS_WITH(neg(bools), Catch::Contains("logical_not()"));
  CHECK_THROWS_WITH(silu(ints), Catch::Contains("expected a floating point input"));
  CHECK_THROWS_WITH(relu(bools), Catch::Contains("bool inputs are not supported"));
}

// The dtype autocast makes of a lower-precision input under `policy`.
DType autocast_result(CastPolicy policy, const UnaryRow& row, DType lower) {
  if (row.result == ResultKind::Bool) return kBool;
  return policy == CastPolicy::Float32 ? kFloat32 : lower;
}

TEST_CASE("op table: autocast casts a row's inputs as its CpuCast and CudaCast columns say") {
  struct Case {
    Device device;
    DType lower;
    bool cuda_column;
  };
  for (Case c : {Case{kCPU, kBFloat16, false}, Case{sim_device(0), kFloat16, true}}) {
    for (const UnaryRow& row : unary_rows()) {
      INFO(row.name << (c.cuda_column ? " on sim:0" : " on the CPU"));
      Tensor leaf = inputs(TensorOptions().device(c.device)).to(c.lower).requires_grad_(true);
      CastPolicy policy = c.cuda_column ? row.cast.cuda : row.cast.cpu;
      Tensor out;
      {
        autocast guard(c.device, c.lower);
        out = row.function(leaf);
      }
      CHECK(out.dtype() == autocast_result(policy, row, c.lower));
      // The gradient comes back through the cast in the leaf's dtype.
      out.to(kFloat32).sum().backward();
      REQUIRE(leaf.grad().defined());
      CHECK(leaf.grad().dtype() == c.lower);
    }
  }
}

TEST_CASE("op table: each row's derivative passes gradcheck and gradgradcheck in float64") {
  for (const UnaryRow& row : unary_rows()) {
    INFO(row.name);
    Tensor x = inputs({}).requires_grad_(true);
    auto fn = [&row](const std::vector<Tensor>& in) { return row.function(in[0]); };
    CHECK(autograd::gradcheck(fn, {x}));
    CHECK(autograd::gradgradcheck(fn, {x}));
  }
}

TEST_CASE("op table: each in-place method computes its row in place and its gradient passes gradcheck") {
  for (const UnaryRow& row : unary_rows()) {
    if (!row.inplace) continue;
    INFO(row.name << "_");
    Tensor x = inputs({});
    CHECK(equal(row.inplace(x), row.function(x)));
    // The method runs on x * 1.0, a new tensor with history: gradients flow back through it.
    x.requires_grad_(true);
    auto fn = [&row](const std::vector<Tensor>& in) { return row.inplace(in[0]); };
    CHECK(autograd::gradcheck(fn, {x}));
    CHECK(autograd::gradgradcheck(fn, {x}));
  }
}

TEST_CASE("op table: an activation row gives its forward and its fused backward kernel") {
#define BRISK_ACTIVATION_NAMES(Op, name, ...)        \
  CHECK(std::string(op_name(UnaryOp::Op)) == #name); \
  CHECK(std::string(op_name(BinaryOp::Op##Backward)) == #name "_backward");
  BRISK_ALL_ACTIVATION_OPS(BRISK_ACTIVATION_NAMES)
#undef BRISK_ACTIVATION_NAMES
}

TEST_CASE("op table: each comparison row is a function and two Tensor methods writing bool") {
  Tensor a = tensor<float>({1, 2, 3}), b = tensor<float>({3, 2, 1});
#define BRISK_COMPARISON_CASE(Op, name, ...)                                         \
  {                                                                                  \
    INFO(#name);                                                                     \
    Tensor expected = native::binary(BinaryOp::Op, a, b);                            \
    CHECK(expected.dtype() == kBool);                                                \
    CHECK(equal(brisk::name(a, b), expected));                                       \
    CHECK(equal(a.name(b), expected));                                               \
    CHECK(equal(a.name(Scalar(2.0)), native::binary(BinaryOp::Op, a, Scalar(2.0)))); \
  }
  BRISK_COMPARISON_OPS(BRISK_COMPARISON_CASE)
#undef BRISK_COMPARISON_CASE
}

// An elementwise row: its native op on inputs of one float dtype.
struct ElementwiseRow {
  std::string name;
  std::function<Tensor(const std::vector<Tensor>&)> run;
};

// Every row of the unary, binary and ternary lists, with numbers inside every unary row's
// domain (softplus's beta must not be 0).
std::vector<ElementwiseRow> elementwise_rows() {
  std::vector<ElementwiseRow> rows;
#define BRISK_UNARY_OP(Op, ...) \
  rows.push_back({op_name(UnaryOp::Op), [](const auto& in) { return native::unary(UnaryOp::Op, in[0], {0.5, 2.0}); }});
#define BRISK_BINARY_OP(Op, ...) \
  rows.push_back({op_name(BinaryOp::Op), [](const auto& in) { return native::binary(BinaryOp::Op, in[0], in[1]); }});
#define BRISK_TERNARY_OP(Op, ...)                                                       \
  rows.push_back({op_name(TernaryOp::Op), [](const auto& in) {                          \
                    return native::ternary(TernaryOp::Op, in[0], in[1], in[2], {0.5}); \
                  }});
  BRISK_UNARY_OPS(BRISK_UNARY_OP)
  BRISK_BINARY_OPS(BRISK_BINARY_OP)
  BRISK_TERNARY_OPS(BRISK_TERNARY_OP)
#undef BRISK_UNARY_OP
#undef BRISK_BINARY_OP
#undef BRISK_TERNARY_OP
  return rows;
}

TEST_CASE("op table: every elementwise row is one profiled op and runs on the simulated device as on the CPU") {
  std::vector<Tensor> cpu = {inputs({}).to(kFloat32), inputs({}).to(kFloat32), inputs({}).to(kFloat32) + 1.0};
  std::vector<Tensor> sim;
  for (const Tensor& t : cpu) sim.push_back(t.to(sim_device(0)));
  for (const ElementwiseRow& row : elementwise_rows()) {
    INFO(row.name);
    profiler::Profiler prof;
    prof.start();
    Tensor expected = row.run(cpu);
    prof.stop();
    int events = 0;
    for (const profiler::Event& e : prof.events()) events += e.category == profiler::Category::Op && e.name == row.name;
    CHECK(events == 1);
    Tensor on_sim = row.run(sim);
    CHECK(on_sim.device() == sim_device(0));
    CHECK(equal(on_sim.to(kCPU), expected));
  }
}

}  // namespace
}  // namespace brisk
