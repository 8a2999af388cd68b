// CudaBackend::batched_gemm through cublasGemmEx (one product) or cublasGemmStridedBatchedEx,
// each operand passed with the transpose flag that undoes how it lies in memory, so transposed
// views cost no copy (docs/cuda_kernels.md, "Matrix products through cuBLAS").
#include <algorithm>
#include <array>
#include <climits>
#include <memory>
#include <optional>

#include "cuda/blas.h"
#include "cuda/blas_workspaces.h"
#include "cuda/cuda_backend.h"
#include "cuda/error.h"
#include "cuda/launch.h"
#include "cuda/stream_registry.h"
#include "tensor/native/ops.h"

namespace brisk::cuda {
namespace {

bool tf32_allowed = false;

struct DeviceHandle {
  std::mutex mutex;
  cublasHandle_t handle = nullptr;
  size_t workspace_bytes = 0;  // of each stream's workspace (blas_workspace_size)
};

// Never destroyed: handles die with the process, after the CUDA runtime may be gone.
DeviceHandle& device_handle(int device) {
  static constexpr int kMaxDevices = 64;
  static auto* handles = new std::array<DeviceHandle, kMaxDevices>();
  BRISK_CHECK(device >= 0 && device < kMaxDevices, "matmul: device index {} out of range", device);
  return (*handles)[device];
}

// Never destroyed: workspaces are freed into the caching allocator, which outlives everything.
BlasWorkspaces& workspaces() {
  static auto* w = new BlasWorkspaces();
  return *w;
}

// How one matrix [rows, cols] of a 3-D operand reads as a column-major cuBLAS matrix: the
// matrix itself (op N) or its transpose (op T), with leading dimension ld.
struct ColumnMajor {
  cublasOperation_t op;
  int64_t ld;
};

// Empty when neither dim has unit stride, or the other stride is too small for cuBLAS (rows
// or columns that overlap). A stride along a dim of size 1 is never used, so such a dim fits
// either layout.
std::optional<ColumnMajor> column_major(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride) {
  if (row_stride == 1 || rows == 1) {
    int64_t ld = cols == 1 ? std::max<int64_t>(rows, 1) : col_stride;
    if (ld >= std::max<int64_t>(rows, 1)) return ColumnMajor{CUBLAS_OP_N, ld};
  }
  if (col_stride == 1 || cols == 1) {
    int64_t ld = rows == 1 ? std::max<int64_t>(cols, 1) : row_stride;
    if (ld >= std::max<int64_t>(cols, 1)) return ColumnMajor{CUBLAS_OP_T, ld};
  }
  return std::nullopt;
}

// The operand t (or t^T), as cuBLAS reads it.
std::optional<ColumnMajor> layout(const Tensor& t, bool transposed) {
  if (transposed) return column_major(t.size(2), t.size(1), t.stride(2), t.stride(1));
  return column_major(t.size(1), t.size(2), t.stride(1), t.stride(2));
}

struct Types {
  cudaDataType_t data;
  cublasComputeType_t compute;
};

Types types_for(DType dtype) {
  switch (dtype) {
    case DType::Float32: return {CUDA_R_32F, tf32_allowed ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F};
    case DType::Float64: return {CUDA_R_64F, CUBLAS_COMPUTE_64F};
    case DType::BFloat16: return {CUDA_R_16BF, CUBLAS_COMPUTE_32F};
    case DType::Float16: return {CUDA_R_16F, CUBLAS_COMPUTE_32F};
    default:
      BRISK_FAIL("matmul: not implemented for dtype {} on CUDA (cuBLAS has no integer products, as in PyTorch)", dtype);
  }
}

int checked_int(int64_t v, const char* what) {
  BRISK_CHECK(v <= INT_MAX, "matmul: {} of {} exceeds cuBLAS's int range", what, v);
  return static_cast<int>(v);
}

// out (column-major, leading dimension ldc) = alpha * p q + beta * out, each operand as its
// ColumnMajor says; m, n, k are the column-major product's sizes.
void gemm(const Tensor& out, int64_t ldc, const Tensor& p, const ColumnMajor& lp, const Tensor& q,
          const ColumnMajor& lq, int64_t m, int64_t n, int64_t k, double alpha, double beta) {
  Types types = types_for(out.dtype());
  LaunchScope scope(out.device());
  BlasHandle handle(scope.device(), scope.stream());
  double alpha64 = alpha, beta64 = beta;
  float alpha32 = static_cast<float>(alpha), beta32 = static_cast<float>(beta);
  bool wide = out.dtype() == kFloat64;
  const void* alpha_ptr = wide ? static_cast<const void*>(&alpha64) : &alpha32;
  const void* beta_ptr = wide ? static_cast<const void*>(&beta64) : &beta32;
  int im = checked_int(m, "a dim"), in = checked_int(n, "a dim"), ik = checked_int(k, "a dim");
  int lda = checked_int(lp.ld, "a stride"), ldb = checked_int(lq.ld, "a stride"), ld = checked_int(ldc, "a stride");
  int64_t batches = out.size(0);
  if (batches == 1) {
    BRISK_CUBLAS_CHECK(cublasGemmEx(handle.get(), lp.op, lq.op, im, in, ik, alpha_ptr, p.raw_data(), types.data, lda,
                                    q.raw_data(), types.data, ldb, beta_ptr, out.raw_data(), types.data, ld,
                                    types.compute, CUBLAS_GEMM_DEFAULT));
    return;
  }
  BRISK_CUBLAS_CHECK(cublasGemmStridedBatchedEx(handle.get(), lp.op, lq.op, im, in, ik, alpha_ptr, p.raw_data(),
                                                types.data, lda, p.stride(0), q.raw_data(), types.data, ldb,
                                                q.stride(0), beta_ptr, out.raw_data(), types.data, ld, out.stride(0),
                                                checked_int(batches, "the batch"), types.compute, CUBLAS_GEMM_DEFAULT));
}

// out = beta * out, for products with nothing to sum (K = 0); beta = 0 never reads out.
void scale(const Tensor& out, double beta) {
  Tensor target = out;
  if (beta == 0) {
    native::fill_(target, 0);
  } else {
    native::binary_(BinaryOp::Mul, target, Scalar(beta));
  }
}

}  // namespace

void set_allow_tf32(bool allow) { tf32_allowed = allow; }

bool allow_tf32() { return tf32_allowed; }

BlasHandle::BlasHandle(int device, cudaStream_t stream) {
  DeviceHandle& slot = device_handle(device);
  lock_ = std::unique_lock<std::mutex>(slot.mutex);
  if (slot.handle == nullptr) {
    int major = 0;
    BRISK_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    slot.workspace_bytes = blas_workspace_size(major);
    BRISK_CUBLAS_CHECK(cublasCreate(&slot.handle));
  }
  handle_ = slot.handle;
  BRISK_CUBLAS_CHECK(cublasSetStream(handle_, stream));
  // After cublasSetStream, which gives the handle back its default workspace, the one all
  // streams would share (cuda/blas_workspaces.h).
  size_t bytes = slot.workspace_bytes;
  void* workspace = workspaces().get(device, stream_registry().ref(stream), [&] {
    StreamGuard on(stream, device);  // allocated on the stream it serves
    Tensor memory = native::empty({static_cast<int64_t>(bytes)}, TensorOptions(kUInt8).device(cuda_device(device)));
    return std::shared_ptr<void>(memory.raw_data(), [memory](void*) {});
  });
  BRISK_CUBLAS_CHECK(cublasSetWorkspace(handle_, workspace, bytes));
}

void CudaBackend::batched_gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta) {
  types_for(out.dtype());  // refuses integer dtypes before anything runs
  int64_t M = out.size(1), N = out.size(2), K = a.size(2);
  if (out.size(0) == 0 || M == 0 || N == 0) return;
  if (K == 0) return scale(out, beta);
  Tensor ca = layout(a, false) ? a : native::contiguous(a);
  Tensor cb = layout(b, false) ? b : native::contiguous(b);
  // A row-major out is the column-major out^T = b^T a^T; a column-major one is a b as is.
  if (auto lo = layout(out, true); lo && lo->op == CUBLAS_OP_N) {
    return gemm(out, lo->ld, cb, *layout(cb, true), ca, *layout(ca, true), N, M, K, alpha, beta);
  }
  if (auto lo = layout(out, false); lo && lo->op == CUBLAS_OP_N) {
    return gemm(out, lo->ld, ca, *layout(ca, false), cb, *layout(cb, false), M, N, K, alpha, beta);
  }
  // Strides cuBLAS cannot write (or overlapping rows): compute densely, then copy back.
  Tensor dense = native::contiguous(out);
  batched_gemm(dense, ca, cb, alpha, beta);
  Tensor target = out;
  native::copy_(target, dense);
}

}  // namespace brisk::cuda
