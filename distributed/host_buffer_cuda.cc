// host_buffer_like in a build with CUDA: pinned memory for CUDA tensors, so the staging copies
// of ProcessGroupGloo run at full bandwidth.
#include <memory>

#include "cuda/pinned_allocator.h"
#include "distributed/host_staging.h"
#include "tensor/native/ops.h"
#include "tensor/shape.h"
#include "tensor/storage.h"

namespace brisk::dist {

Tensor host_buffer_like(const Tensor& like) {
  if (!like.is_cuda()) return native::empty(like.sizes(), TensorOptions(like.dtype()));
  size_t nbytes = like.nbytes();
  auto storage = std::make_shared<Storage>(cuda::pinned_allocator()->allocate(nbytes, kCPU), nbytes, kCPU);
  return Tensor(std::make_shared<TensorImpl>(storage, like.sizes(), contiguous_strides(like.sizes()), 0, like.dtype()));
}

}  // namespace brisk::dist
