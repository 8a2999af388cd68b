// host_buffer_like in a build without CUDA: ordinary host memory.
#include "distributed/host_staging.h"
#include "tensor/native/ops.h"

namespace brisk::dist {

Tensor host_buffer_like(const Tensor& like) { return native::empty(like.sizes(), TensorOptions(like.dtype())); }

}  // namespace brisk::dist
