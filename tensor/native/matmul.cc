// Matrix products. Everything funnels into Backend::batched_gemm on 3-D operands; matmul adds
// torch.matmul's handling of 1-D operands and broadcast batch dims.
#include "tensor/backend.h"
#include "tensor/native/ops.h"

namespace brisk::native {
namespace {

void check_operands(const char* op, const Tensor& a, const Tensor& b) {
  BRISK_CHECK(a.dtype() == b.dtype(), "{}: expected operands of the same dtype, got {} and {} (shapes {} and {})", op,
              a.dtype(), b.dtype(), a.sizes(), b.sizes());
  BRISK_CHECK(a.device() == b.device(), "{}: expected operands on the same device, got {} and {}", op, a.device(),
              b.device());
  BRISK_CHECK(a.dtype() != kBool, "{}: not implemented for dtype bool (shapes {} and {})", op, a.sizes(), b.sizes());
}

void check_inner(const char* op, const Tensor& a, const Tensor& b, int64_t k_a, int64_t k_b) {
  BRISK_CHECK(k_a == k_b, "{}: shapes {} and {} cannot be multiplied ({} != {})", op, a.sizes(), b.sizes(), k_a, k_b);
}

// [B, M, K] x [B, K, N] -> a new contiguous [B, M, N].
Tensor gemm3(const Tensor& a, const Tensor& b) {
  Tensor out = empty({a.size(0), a.size(1), b.size(2)}, a.options());
  backend_for(a.device()).batched_gemm(out, a, b, 1.0, 0.0);
  return out;
}

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  BRISK_CHECK(a.dim() == 2 && b.dim() == 2, "mm: expected 2-D operands, got shapes {} and {}", a.sizes(), b.sizes());
  check_operands("mm", a, b);
  check_inner("mm", a, b, a.size(1), b.size(0));
  return select(gemm3(unsqueeze(a, 0), unsqueeze(b, 0)), 0, 0);
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  BRISK_CHECK(a.dim() == 3 && b.dim() == 3, "bmm: expected 3-D operands, got shapes {} and {}", a.sizes(), b.sizes());
  check_operands("bmm", a, b);
  BRISK_CHECK(a.size(0) == b.size(0), "bmm: batch sizes of shapes {} and {} differ ({} != {})", a.sizes(), b.sizes(),
              a.size(0), b.size(0));
  check_inner("bmm", a, b, a.size(2), b.size(1));
  return gemm3(a, b);
}

Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, Scalar beta, Scalar alpha) {
  BRISK_CHECK(a.dim() == 2 && b.dim() == 2, "addmm: expected 2-D operands, got shapes {} and {}", a.sizes(), b.sizes());
  check_operands("addmm", a, b);
  check_operands("addmm", bias, a);
  check_inner("addmm", a, b, a.size(1), b.size(0));
  Shape shape{a.size(0), b.size(1)};
  bool bias_fits = bias.dim() <= 2;
  for (int64_t i = 1; bias_fits && i <= bias.dim(); ++i) {
    int64_t s = bias.size(-i);
    bias_fits = s == 1 || s == shape[2 - i];
  }
  BRISK_CHECK(bias_fits, "addmm: bias of shape {} cannot be broadcast to the product's shape {}", bias.sizes(), shape);
  Tensor out = empty({1, shape[0], shape[1]}, a.options());
  // With beta == 0 the bias is ignored entirely, so NaN or inf in it does not leak through.
  if (beta.to_double() != 0) {
    Tensor dst = select(out, 0, 0);
    copy_(dst, expand(bias, shape));
  }
  backend_for(a.device()).batched_gemm(out, unsqueeze(a, 0), unsqueeze(b, 0), alpha.to_double(), beta.to_double());
  return select(out, 0, 0);
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  int64_t da = a.dim(), db = b.dim();
  BRISK_CHECK(da >= 1 && db >= 1, "matmul: both operands must be at least 1-D, got shapes {} and {}", a.sizes(),
              b.sizes());
  check_operands("matmul", a, b);
  // A 1-D operand becomes a matrix (a row on the left, a column on the right) whose added dim
  // is dropped from the result.
  Tensor a2 = da == 1 ? unsqueeze(a, 0) : a;
  Tensor b2 = db == 1 ? unsqueeze(b, 1) : b;
  int64_t M = a2.size(-2), K = a2.size(-1), N = b2.size(-1);
  check_inner("matmul", a, b, K, b2.size(-2));
  Shape batch_a(a2.sizes().begin(), a2.sizes().end() - 2);
  Shape batch_b(b2.sizes().begin(), b2.sizes().end() - 2);
  Shape batch = broadcast_shapes(batch_a, batch_b, "matmul");
  Shape result = batch;
  if (da > 1) result.push_back(M);
  if (db > 1) result.push_back(N);

  if (batch_b.empty()) {
    // [..., M, K] x [K, N]: fold a's batch into its rows for a single large product.
    Tensor rows = reshape(a2, {1, shape_numel(batch) * M, K});
    return view(gemm3(rows, unsqueeze(b2, 0)), result);
  }
  int64_t batches = shape_numel(batch);
  Shape a_shape = batch, b_shape = batch;
  a_shape.insert(a_shape.end(), {M, K});
  b_shape.insert(b_shape.end(), {K, N});
  Tensor a3 = reshape(expand(a2, a_shape), {batches, M, K});
  Tensor b3 = reshape(expand(b2, b_shape), {batches, K, N});
  return view(gemm3(a3, b3), result);
}

}  // namespace brisk::native
