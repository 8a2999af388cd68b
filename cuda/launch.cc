#include "cuda/launch.h"

#include <vector>

namespace brisk::cuda {

const DeviceLimits& device_limits(int device) {
  static const std::vector<DeviceLimits> limits = [] {
    std::vector<DeviceLimits> all(static_cast<size_t>(device_count()));
    for (size_t d = 0; d < all.size(); ++d) {
      int index = static_cast<int>(d);
      BRISK_CUDA_CHECK(cudaDeviceGetAttribute(&all[d].sm_count, cudaDevAttrMultiProcessorCount, index));
      BRISK_CUDA_CHECK(
          cudaDeviceGetAttribute(&all[d].max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, index));
    }
    return all;
  }();
  check_device(device);
  return limits[static_cast<size_t>(device)];
}

void check_elementwise_operands(const Tensor& out, std::initializer_list<const Tensor*> inputs, const DType* expected) {
  BRISK_CHECK(out.is_cuda(), "gpu_kernel: the output {} is not a CUDA tensor", out.describe());
  BRISK_CHECK(out.dtype() == expected[0], "gpu_kernel: the output is {} but the kernel writes {}", out.describe(),
              expected[0]);
  int k = 1;
  for (const Tensor* t : inputs) {
    BRISK_CHECK(t->device() == out.device(), "gpu_kernel: input {} is not on the output's device {}", t->describe(),
                out.device());
    BRISK_CHECK(t->dtype() == expected[k], "gpu_kernel: input {} is {} but the kernel reads {}", k, t->describe(),
                expected[k]);
    ++k;
  }
}

void check_contiguous(const char* op, std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts) {
    BRISK_CHECK(!t->defined() || t->is_contiguous(), "{}: expected contiguous tensors, got {}", op, t->describe());
  }
}

void for_each_launch_piece(iter::LoopShape s, void (*f)(const iter::LoopShape& piece, void* context), void* context) {
  if (s.numel == 0) return;
  while (s.ndim > 1 && s.sizes[s.ndim - 1] == 1) --s.ndim;
  if (s.ndim <= kMaxLaunchDims && s.numel <= kMaxLaunchElements) {
    f(s, context);
    return;
  }
  int outer = s.ndim - 1;
  int64_t size = s.sizes[outer];
  iter::LoopShape piece = s;
  if (s.ndim > kMaxLaunchDims) {
    piece.ndim = outer;
    piece.numel = s.numel / size;
    for (int64_t i = 0; i < size; ++i) {
      for (int k = 0; k < s.noperands; ++k) piece.data[k] = s.data[k] + i * s.strides[k][outer];
      for_each_launch_piece(piece, f, context);
    }
    return;
  }
  int64_t half = size / 2;
  piece.sizes[outer] = half;
  piece.numel = s.numel / size * half;
  for_each_launch_piece(piece, f, context);
  piece.sizes[outer] = size - half;
  piece.numel = s.numel / size * (size - half);
  for (int k = 0; k < s.noperands; ++k) piece.data[k] = s.data[k] + half * s.strides[k][outer];
  for_each_launch_piece(piece, f, context);
}

}  // namespace brisk::cuda
