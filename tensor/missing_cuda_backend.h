#pragma once
// Why a CUDA device cannot be used when no CUDA backend registered itself, for the errors of
// backend_for and allocator_for. Defined in its own library (tensor/BUILD:
// missing_cuda_backend), the one source compiled with the build's CUDA setting.
namespace brisk::detail {

const char* missing_cuda_backend_reason();

}  // namespace brisk::detail
