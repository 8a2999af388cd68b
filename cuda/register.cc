// Makes the CUDA backend the one backend_for() returns for CUDA devices, at static
// initialization of any program that links //cuda:backend (an alwayslink library).
#include "cuda/cuda_backend.h"

namespace brisk::cuda {
namespace {

const bool registered = [] {
  static CudaBackend backend;
  register_backend(DeviceType::CUDA, &backend);
  return true;
}();

}  // namespace
}  // namespace brisk::cuda
