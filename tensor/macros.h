#pragma once
// Marks functions that nvcc compiles for both host and device, so the CPU and CUDA
// kernels of an op share one definition of its arithmetic.
#include "brisk/requires_cxx17.h"

#if defined(__CUDACC__)
#define BRISK_HOST_DEVICE __host__ __device__
#define BRISK_INLINE __host__ __device__ __forceinline__
#else
#define BRISK_HOST_DEVICE
#define BRISK_INLINE inline
#endif
