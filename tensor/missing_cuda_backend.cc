// Compiled on its own (tensor/BUILD: missing_cuda_backend) with the build's CUDA setting, so
// the tensor library itself does not depend on it: in a CUDA build the program merely does
// not link //cuda.
#include "tensor/missing_cuda_backend.h"

namespace brisk::detail {

const char* missing_cuda_backend_reason() {
#ifdef BRISK_WITH_CUDA
  return "this program does not link Brisk's CUDA backend (depend on //cuda)";
#else
  return "this build of Brisk has no CUDA support (built without the CUDA toolkit)";
#endif
}

}  // namespace brisk::detail
