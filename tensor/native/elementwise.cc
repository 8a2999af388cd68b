// Unary and binary elementwise native ops: PyTorch's dtype rules, broadcasting, in-place
// checks, then one backend kernel. (Ternary ops, where and masked_fill: native/ternary.cc.)
#include <cmath>
#include <limits>

#include "tensor/backend.h"
#include "tensor/native/operands.h"

namespace brisk::native {
namespace {

// Comparisons and logical ops (the Bool rows of tensor/op_table.h).
template <typename Op>
bool writes_bool(Op op) {
  return result_kind(op) == ResultKind::Bool;
}

bool is_whole(double v) { return std::isinf(v) || v == std::trunc(v); }

// The dtype an op of result kind `kind` computes in, given `t`: x's dtype, or the promoted dtype
// of a binary op's inputs. Errors name the op and x.
DType compute_type(ResultKind kind, const char* name, const Tensor& x, DType t, OpParams p) {
  switch (kind) {
    case ResultKind::Same:
    case ResultKind::Bool: return t;
    case ResultKind::Float: return is_floating_point(t) ? t : kFloat32;
    case ResultKind::SameNotBool:
      BRISK_CHECK(t != kBool, "{}: bool inputs are not supported (input {})", name, x.describe());
      return t;
    case ResultKind::Negation:
      BRISK_CHECK(t != kBool,
                  "{}: negation, the `-` operator, on a bool tensor is not supported; to invert a mask use "
                  "logical_not() (input {})",
                  name, x.describe());
      return t;
    case ResultKind::Floating:
      BRISK_CHECK(is_floating_point(t), "{}: expected a floating point input, got {}", name, x.describe());
      return t;
    case ResultKind::BoolAsInt64: return t == kBool ? kInt64 : t;
    case ResultKind::NumberPromoted:
      return result_type(x, is_whole(p.a) && is_whole(p.b) ? Scalar(int64_t(0)) : Scalar(0.0));
  }
  return t;
}

DType unary_compute_type(UnaryOp op, const Tensor& x, OpParams p) {
  return compute_type(result_kind(op), op_name(op), x, x.dtype(), p);
}

void check_pow_exponent(const Tensor& base, DType compute, double exponent) {
  BRISK_CHECK(is_floating_point(compute) || exponent >= 0,
              "pow: integers to negative integer powers are not allowed (base {}, exponent {})", base.describe(),
              exponent);
}

// The dtype a binary op computes in (its output's, except for comparisons and logical ops,
// which write bool), after PyTorch's checks on it.
DType binary_compute_type(BinaryOp op, DType promoted, const Tensor& a, const std::string& b_desc, OpParams p) {
  const char* name = op_name(op);
  switch (op) {
    case BinaryOp::Sub:
      BRISK_CHECK(promoted != kBool,
                  "sub: subtraction, the `-` operator, with two bool tensors is not supported; use the `^` or "
                  "logical_xor() operator instead ({} and {})",
                  a.describe(), b_desc);
      [[fallthrough]];
    case BinaryOp::Add:
      BRISK_CHECK(is_floating_point(promoted) || is_whole(p.a),
                  "{}: for integral input tensors, argument alpha must not be a floating point number (got {}; "
                  "inputs {} and {})",
                  name, p.a, a.describe(), b_desc);
      return promoted;
    case BinaryOp::Lerp:
      BRISK_CHECK(is_floating_point(promoted), "lerp: expected floating point tensors, got {} and {}", a.describe(),
                  b_desc);
      return promoted;
    default: return compute_type(result_kind(op), name, a, promoted, p);
  }
}

// lerp takes no promotion between its tensors, as PyTorch's.
void check_lerp_dtypes(BinaryOp op, const Tensor& start, const Tensor& end) {
  BRISK_CHECK(op != BinaryOp::Lerp || start.dtype() == end.dtype(),
              "lerp: expected dtype {} for `end` but got {} (start {}, end {})", start.dtype(), end.dtype(),
              start.describe(), end.describe());
}

// A new tensor of `out_dtype` holding op(x), x converted to `in_dtype` first.
Tensor run_unary(UnaryOp op, const Tensor& x, DType in_dtype, DType out_dtype, OpParams p) {
  Tensor out = detail::new_output(x.sizes(), out_dtype, x.device(), {x});
  backend_for(x.device()).unary(op, out, to(x, x.device(), in_dtype), p);
  return out;
}

// Runs an in-place op straight into self when self can be both the kernel's output and its
// input as is; otherwise computes out of place and copies (casting) into self.
template <typename OutOfPlace, typename Kernel>
Tensor& run_inplace(Tensor& self, bool direct, const OutOfPlace& out_of_place, const Kernel& kernel) {
  if (direct) {
    kernel();
  } else {
    Tensor result = out_of_place();
    copy_(self, result);
  }
  return self;
}

}  // namespace

Tensor unary(UnaryOp op, const Tensor& x, OpParams p) {
  DType compute = unary_compute_type(op, x, p);
  if (op == UnaryOp::PowScalar) check_pow_exponent(x, compute, p.a);
  BRISK_CHECK(op != UnaryOp::Softplus || p.a != 0.0, "softplus: beta must not be 0");
  return run_unary(op, x, writes_bool(op) ? x.dtype() : compute, writes_bool(op) ? kBool : compute, p);
}

Tensor& unary_(UnaryOp op, Tensor& self, OpParams p) {
  const char* name = op_name(op);
  DType compute = unary_compute_type(op, self, p);
  if (op == UnaryOp::PowScalar) check_pow_exponent(self, compute, p.a);
  DType out_dtype = writes_bool(op) ? kBool : compute;
  detail::check_can_cast(name, out_dtype, self.dtype());
  detail::check_inplace_output(name, self, self.sizes());
  bool direct = out_dtype == self.dtype() && (writes_bool(op) || compute == self.dtype());
  return run_inplace(
      self, direct, [&] { return unary(op, self, p); }, [&] { backend_for(self.device()).unary(op, self, self, p); });
}

Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) {
  BRISK_CHECK(min || max, "clamp: at least one of min and max must be given (input {})", x.describe());
  std::vector<Scalar> bounds;
  if (min) bounds.push_back(*min);
  if (max) bounds.push_back(*max);
  DType compute = result_type(std::vector<Tensor>{x}, bounds);
  OpParams p{min ? min->to_double() : -std::numeric_limits<double>::infinity(),
             max ? max->to_double() : std::numeric_limits<double>::infinity()};
  return run_unary(UnaryOp::Clamp, x, compute, compute, p);
}

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b, OpParams p) {
  const char* name = op_name(op);
  check_lerp_dtypes(op, a, b);
  Device device = common_device(name, {a, b});
  DType compute = binary_compute_type(op, result_type(a, b), a, b.describe(), p);
  Shape shape = broadcast_shapes(a.sizes(), b.sizes(), name);
  Tensor out = detail::new_output(shape, writes_bool(op) ? kBool : compute, device, {a, b});
  backend_for(device).binary(op, out, detail::operand(a, compute, device, shape),
                             detail::operand(b, compute, device, shape), p);
  return out;
}

Tensor binary(BinaryOp op, const Tensor& a, Scalar b, OpParams p) {
  DType compute = binary_compute_type(op, result_type(a, b), a, fmt::format("the number {}", b.to_double()), p);
  if (op == BinaryOp::Pow) {
    // x ** number has its own kernel, with fast paths for the common exponents.
    check_pow_exponent(a, compute, b.to_double());
    return run_unary(UnaryOp::PowScalar, a, compute, compute, {b.to_double()});
  }
  Tensor out = detail::new_output(a.sizes(), writes_bool(op) ? kBool : compute, a.device(), {a});
  backend_for(a.device())
      .binary(op, out, detail::operand(a, compute, a.device(), a.sizes()),
              expand(detail::scalar_operand(b, compute, a.device()), a.sizes()), p);
  return out;
}

Tensor binary(BinaryOp op, Scalar a, const Tensor& b, OpParams p) {
  DType compute = binary_compute_type(op, result_type(b, a), b, b.describe(), p);
  if (op == BinaryOp::Pow) return run_unary(UnaryOp::RPowScalar, b, compute, compute, {a.to_double()});
  Tensor out = detail::new_output(b.sizes(), writes_bool(op) ? kBool : compute, b.device(), {b});
  backend_for(b.device())
      .binary(op, out, expand(detail::scalar_operand(a, compute, b.device()), b.sizes()),
              detail::operand(b, compute, b.device(), b.sizes()), p);
  return out;
}

Tensor& binary_(BinaryOp op, Tensor& self, const Tensor& other, OpParams p) {
  const char* name = op_name(op);
  check_lerp_dtypes(op, self, other);
  Device device = detail::inplace_device(name, self, {other});
  DType compute = binary_compute_type(op, result_type(self, other), self, other.describe(), p);
  DType out_dtype = writes_bool(op) ? kBool : compute;
  detail::check_can_cast(name, out_dtype, self.dtype());
  detail::check_inplace_output(name, self, broadcast_shapes(self.sizes(), other.sizes(), name));
  bool direct = out_dtype == self.dtype() && compute == self.dtype() && !detail::partially_overlaps(self, other);
  return run_inplace(
      self, direct, [&] { return binary(op, self, other, p); },
      [&] { backend_for(device).binary(op, self, self, detail::operand(other, compute, device, self.sizes()), p); });
}

Tensor& binary_(BinaryOp op, Tensor& self, Scalar other, OpParams p) {
  const char* name = op_name(op);
  DType compute =
      binary_compute_type(op, result_type(self, other), self, fmt::format("the number {}", other.to_double()), p);
  DType out_dtype = writes_bool(op) ? kBool : compute;
  detail::check_can_cast(name, out_dtype, self.dtype());
  detail::check_inplace_output(name, self, self.sizes());
  if (op == BinaryOp::Pow) check_pow_exponent(self, compute, other.to_double());
  bool direct = out_dtype == self.dtype() && compute == self.dtype();
  Backend& backend = backend_for(self.device());
  return run_inplace(
      self, direct, [&] { return binary(op, self, other, p); },
      [&] {
        if (op == BinaryOp::Pow) {
          backend.unary(UnaryOp::PowScalar, self, self, {other.to_double()});
        } else {
          backend.binary(op, self, self, expand(detail::scalar_operand(other, compute, self.device()), self.sizes()),
                         p);
        }
      });
}

Tensor& fill_(Tensor& self, Scalar value) {
  detail::check_fits("fill_", value, self.dtype());
  detail::check_inplace_output("fill_", self, self.sizes());
  // float64 holds every int up to 2^53 exactly; larger int64 values go through an exact copy.
  bool exact = value.kind() != Scalar::Kind::Int ||
               (value.to_int() <= detail::kExactInDouble && value.to_int() >= -detail::kExactInDouble);
  if (exact) {
    backend_for(self.device()).unary(UnaryOp::Fill, self, self, {value.to_double()});
  } else {
    copy_(self, detail::scalar_operand(value, self.dtype(), kCPU));
  }
  return self;
}

}  // namespace brisk::native
