#include "cuda/error.h"

#include <cstdio>
#include <string>

namespace brisk::cuda {

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  // Clears a non-sticky error so the next CUDA call does not report it again.
  cudaGetLastError();
  BRISK_FAIL("CUDA error {} ({}): {}\n  in {} at {}:{}", cudaGetErrorName(status), static_cast<int>(status),
             cudaGetErrorString(status), call, file, line);
}

std::string take_pending_cuda_error() {
  cudaError_t pending = cudaGetLastError();
  return pending == cudaSuccess ? "" : fmt::format(" (CUDA error left by the call: {})", cudaGetErrorName(pending));
}

cudaError_t settle_query(cudaError_t status) noexcept {
  if (status == cudaErrorNotReady) cudaGetLastError();
  return status;
}

bool query_finished(cudaError_t status, const char* call, const char* file, int line) {
  if (settle_query(status) == cudaErrorNotReady) return false;
  if (status != cudaSuccess) throw_cuda_error(status, call, file, line);
  return true;
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  BRISK_FAIL("cuBLAS error {}: {}{}\n  in {} at {}:{}", cublasGetStatusName(status), cublasGetStatusString(status),
             take_pending_cuda_error(), call, file, line);
}

void throw_cudnn_error(cudnnStatus_t status, const char* call, const char* file, int line) {
  char detail[512] = "";
  cudnnGetLastErrorString(detail, sizeof(detail));
  BRISK_FAIL("cuDNN error {}{}{}{}\n  in {} at {}:{}", cudnnGetErrorString(status), detail[0] ? ": " : "", detail,
             take_pending_cuda_error(), call, file, line);
}

void throw_nccl_error(ncclResult_t status, const char* call, const char* file, int line) {
  BRISK_FAIL("NCCL error {}: {}\n  in {} at {}:{}", static_cast<int>(status), ncclGetErrorString(status), call, file,
             line);
}

void report_failure(const char* what, const char* message) noexcept {
  std::fprintf(stderr, "Brisk: %s failed: %s\n", what, message);
}

}  // namespace brisk::cuda
