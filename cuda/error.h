#pragma once
// Turns every failed CUDA, cuBLAS, cuDNN and NCCL call into a brisk::Error that names the
// call, the library's message, and the file and line of the call.
// A CUDA error that a failed call left pending is taken (cudaGetLastError) and named too.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <nccl.h>

#include <exception>
#include <string>

#include "tensor/error.h"

namespace brisk::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line);
[[noreturn]] void throw_cudnn_error(cudnnStatus_t status, const char* call, const char* file, int line);
[[noreturn]] void throw_nccl_error(ncclResult_t status, const char* call, const char* file, int line);

// A failed library call (cuBLAS, cuDNN) may leave the CUDA error of a kernel launch it made
// pending: takes it (cudaGetLastError), so that the next launch check does not report it
// against an unrelated kernel. "" when none was pending, else " (CUDA error left by the
// call: <name>)", to append to the call's own message.
std::string take_pending_cuda_error();

// cudaStreamQuery and cudaEventQuery answer cudaErrorNotReady while work is still queued. That
// is no failure, but the runtime also keeps it as the thread's last error, where the next
// launch check (BRISK_CUDA_CHECK_LAUNCH: cudaGetLastError) would throw it for an unrelated
// kernel. Every query's answer passes through here (or BRISK_CUDA_QUERY): cudaErrorNotReady is
// cleared from the last error; the answer is returned unchanged.
cudaError_t settle_query(cudaError_t status) noexcept;
// BRISK_CUDA_QUERY's: true when the work finished, false when it is still running; any other
// answer throws as BRISK_CUDA_CHECK does.
bool query_finished(cudaError_t status, const char* call, const char* file, int line);

// Writes "Brisk: <what> failed: <message>" to stderr.
void report_failure(const char* what, const char* message) noexcept;

// For destructors and memory deleters, which must never throw (an exception leaving a
// deleter calls std::terminate): runs f(), reports an exception with report_failure and
// goes on.
template <typename F>
void run_reporting_failure(const char* what, F&& f) noexcept {
  try {
    f();
  } catch (const std::exception& e) {
    report_failure(what, e.what());
  } catch (...) {
    report_failure(what, "an exception that is not a std::exception");
  }
}

}  // namespace brisk::cuda

// Raises through `thrower` (one of the throw_*_error above) unless `call` returned `success`.
// `text` is the call as written (stringized before its macros, such as flag names, expand).
#define BRISK_STATUS_CHECK(Status, success, thrower, call, text)                                   \
  do {                                                                                             \
    Status brisk_status_ = (call);                                                                 \
    if (brisk_status_ != success) ::brisk::cuda::thrower(brisk_status_, text, __FILE__, __LINE__); \
  } while (0)

#define BRISK_CUDA_CHECK(call) BRISK_STATUS_CHECK(cudaError_t, cudaSuccess, throw_cuda_error, call, #call)

// cudaStreamQuery / cudaEventQuery as a bool (finished or not), leaving no cudaErrorNotReady
// behind (settle_query); other errors throw.
#define BRISK_CUDA_QUERY(call) ::brisk::cuda::query_finished((call), #call, __FILE__, __LINE__)

// After a kernel launch: reports launch-configuration errors at the launch site.
#define BRISK_CUDA_CHECK_LAUNCH() BRISK_CUDA_CHECK(cudaGetLastError())

#define BRISK_CUBLAS_CHECK(call) \
  BRISK_STATUS_CHECK(cublasStatus_t, CUBLAS_STATUS_SUCCESS, throw_cublas_error, call, #call)
#define BRISK_CUDNN_CHECK(call) BRISK_STATUS_CHECK(cudnnStatus_t, CUDNN_STATUS_SUCCESS, throw_cudnn_error, call, #call)
#define BRISK_NCCL_CHECK(call) BRISK_STATUS_CHECK(ncclResult_t, ncclSuccess, throw_nccl_error, call, #call)
