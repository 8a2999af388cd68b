// Batched matrix multiply on the CPU. float32/float64 go through Eigen's blocked GEMM on
// maps of the operands' memory, so transposed views are read in place; Eigen threads a
// large product over OpenMP itself, and a batch of small products is split over threads
// instead. Integer dtypes use a plain loop; bfloat16/float16 compute in float32.
#include <Eigen/Core>

#include "tensor/cpu/cpu_backend.h"
#include "tensor/cpu/float32_compute.h"
#include "tensor/dispatch.h"
#include "tensor/native/ops.h"
#include "tensor/parallel.h"

namespace brisk::cpu {
namespace {

// How one [rows, cols] matrix of a 3-D operand sits in memory. Eigen reads a matrix with a
// unit stride along rows (row-major) or columns (column-major) and any stride between them.
struct MatrixLayout {
  bool row_major;
  int64_t ld;  // distance between consecutive rows (row-major) or columns (column-major)
};

std::optional<MatrixLayout> layout_of(const Tensor& t) {
  int64_t rows = t.size(1), cols = t.size(2), rs = t.stride(1), cs = t.stride(2);
  // A stride along a dim of size 1 is never used, so such a dim fits either layout.
  if (cs == 1 || cols == 1) return MatrixLayout{true, rows == 1 ? cols : rs};
  if (rs == 1 || rows == 1) return MatrixLayout{false, cols == 1 ? rows : cs};
  return std::nullopt;
}

template <typename T, int Order>
using ConstMap =
    Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Order>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <typename T>
using OutMap = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>, Eigen::Unaligned,
                          Eigen::OuterStride<>>;

// The operands of one batched product after normalization: `out` is row-major.
template <typename T>
struct GemmArgs {
  T* out;
  const T* a;
  const T* b;
  int64_t out_batch, a_batch, b_batch;  // batch strides (0 for a broadcast operand)
  int64_t ldo, lda, ldb;
  int64_t M, N, K;
  T alpha, beta;
};

template <typename T, int AOrder, int BOrder>
void eigen_gemm(const GemmArgs<T>& g, int64_t batch) {
  OutMap<T> c(g.out + batch * g.out_batch, g.M, g.N, Eigen::OuterStride<>(g.ldo));
  if (g.K == 0) {
    if (g.beta == T(0)) {
      c.setZero();
    } else {
      c *= g.beta;
    }
    return;
  }
  ConstMap<T, AOrder> a(g.a + batch * g.a_batch, g.M, g.K, Eigen::OuterStride<>(g.lda));
  ConstMap<T, BOrder> b(g.b + batch * g.b_batch, g.K, g.N, Eigen::OuterStride<>(g.ldb));
  // beta == 0 must not read `out`: it may hold garbage (NaN) that 0 * x would keep.
  if (g.beta == T(0)) {
    if (g.alpha == T(1)) {
      c.noalias() = a * b;
    } else {
      c.noalias() = g.alpha * a * b;
    }
  } else {
    if (g.beta != T(1)) c *= g.beta;
    c.noalias() += g.alpha * a * b;
  }
}

template <typename T, int AOrder, int BOrder>
void run_batches(const GemmArgs<T>& g, int64_t batches) {
  // Threads go to the batch when it has enough products to keep them busy; otherwise each
  // product runs in turn and Eigen threads inside it.
  bool split_batch = batches >= 2 * get_num_threads() || (batches > 1 && g.M * g.N * g.K < 64 * 64 * 64);
  int64_t grain = split_batch ? 1 : batches;
  parallel_for(0, batches, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) eigen_gemm<T, AOrder, BOrder>(g, i);
  });
}

template <typename T>
void eigen_batched_gemm(const GemmArgs<T>& g, bool a_row_major, bool b_row_major, int64_t batches) {
  if (a_row_major && b_row_major) return run_batches<T, Eigen::RowMajor, Eigen::RowMajor>(g, batches);
  if (a_row_major) return run_batches<T, Eigen::RowMajor, Eigen::ColMajor>(g, batches);
  if (b_row_major) return run_batches<T, Eigen::ColMajor, Eigen::RowMajor>(g, batches);
  run_batches<T, Eigen::ColMajor, Eigen::ColMajor>(g, batches);
}

// out[i][j] = beta * out[i][j] + alpha * sum_k a[i][k] * b[k][j], wrapping like PyTorch's
// integer matmul.
template <typename T>
void loop_batched_gemm(const Tensor& out, const Tensor& a, const Tensor& b, T alpha, T beta) {
  int64_t M = out.size(1), N = out.size(2), K = a.size(2);
  T* o = out.data_ptr<T>();
  const T* pa = a.data_ptr<T>();
  const T* pb = b.data_ptr<T>();
  int64_t os0 = out.stride(0), os1 = out.stride(1), os2 = out.stride(2);
  int64_t as0 = a.stride(0), as1 = a.stride(1), as2 = a.stride(2);
  int64_t bs0 = b.stride(0), bs1 = b.stride(1), bs2 = b.stride(2);
  int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, N * K));
  parallel_for(0, out.size(0) * M, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t row = lo; row < hi; ++row) {
      int64_t batch = row / M, i = row % M;
      T* orow = o + batch * os0 + i * os1;
      for (int64_t j = 0; j < N; ++j) orow[j * os2] = beta == T(0) ? T(0) : static_cast<T>(beta * orow[j * os2]);
      for (int64_t k = 0; k < K; ++k) {
        T aik = static_cast<T>(alpha * pa[batch * as0 + i * as1 + k * as2]);
        const T* brow = pb + batch * bs0 + k * bs1;
        for (int64_t j = 0; j < N; ++j) orow[j * os2] = static_cast<T>(orow[j * os2] + aik * brow[j * bs2]);
      }
    }
  });
}

}  // namespace

void CpuBackend::batched_gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta) {
  DType dtype = out.dtype();
  if (is_reduced_float(dtype)) {
    Float32Results results({out});
    batched_gemm(results[0], as_float32(a), as_float32(b), alpha, beta);
    results.write_back();
    return;
  }
  if (dtype == kInt64 || dtype == kInt32 || dtype == kUInt8) {
    dispatch(TypeList<int64_t, int32_t, uint8_t>{}, dtype, "matmul", [&](auto tag) {
      using T = typename decltype(tag)::type;
      loop_batched_gemm<T>(out, a, b, static_cast<T>(alpha), static_cast<T>(beta));
    });
    return;
  }
  int64_t batches = out.size(0), M = out.size(1), N = out.size(2), K = a.size(2);
  if (batches == 0 || M == 0 || N == 0) return;
  // Eigen needs unit stride along one dim of each operand; others are copied first.
  Tensor ca = layout_of(a) ? a : native::contiguous(a);
  Tensor cb = layout_of(b) ? b : native::contiguous(b);
  auto out_layout = layout_of(out);
  if (!out_layout || (out_layout->row_major ? out_layout->ld < N : out_layout->ld < M)) {
    // `out` has strides Eigen cannot write (or rows that overlap): compute densely, copy back.
    Tensor dense = native::contiguous(out);
    batched_gemm(dense, ca, cb, alpha, beta);
    Tensor dst = out;
    native::copy_(dst, dense);
    return;
  }
  // A column-major out is the row-major out^T = b^T a^T, and transposing flips layouts.
  const bool transposed = !out_layout->row_major;
  const Tensor& x = transposed ? cb : ca;
  const Tensor& y = transposed ? ca : cb;
  MatrixLayout lx = *layout_of(x), ly = *layout_of(y);
  dispatch(TypeList<float, double>{}, dtype, "matmul", [&](auto tag) {
    using T = typename decltype(tag)::type;
    GemmArgs<T> g{out.data_ptr<T>(),
                  x.data_ptr<T>(),
                  y.data_ptr<T>(),
                  out.stride(0),
                  x.stride(0),
                  y.stride(0),
                  out_layout->ld,
                  lx.ld,
                  ly.ld,
                  transposed ? N : M,
                  transposed ? M : N,
                  K,
                  static_cast<T>(alpha),
                  static_cast<T>(beta)};
    eigen_batched_gemm(g, lx.row_major != transposed, ly.row_major != transposed, batches);
  });
}

}  // namespace brisk::cpu
