#pragma once
// What every kernel launch of the CUDA backend needs on the host: the tensor's device made
// current, its current stream, and a grid sized to the device.
//
// Grids are "persistent": at most as many blocks as the device keeps resident at once
// (SMs x resident blocks per SM), each walking the work in a grid-stride loop, so a launch
// never queues waves of short-lived blocks and small tensors get only the blocks they need.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>

#include "cuda/device.h"
#include "cuda/error.h"
#include "cuda/stream.h"
#include "tensor/iter/loop_shape.h"
#include "tensor/tensor.h"

namespace brisk::cuda {

struct DeviceLimits {
  int sm_count = 0;
  int max_threads_per_sm = 0;
};

// Queried once per process: cudaGetDeviceProperties takes microseconds, too long per op.
const DeviceLimits& device_limits(int device);

// Blocks of `threads` threads, each thread taking `per_thread` of the `items`: enough to
// cover the items, no more than fit on the device at once (and at least one).
inline unsigned grid_size(int device, int64_t items, int threads, int64_t per_thread = 1) {
  const DeviceLimits& limits = device_limits(device);
  int64_t resident = static_cast<int64_t>(limits.sm_count) * (limits.max_threads_per_sm / threads);
  int64_t needed = (items + threads * per_thread - 1) / (threads * per_thread);
  return static_cast<unsigned>(std::max<int64_t>(1, std::min(resident, needed)));
}

// The smallest power of two >= x (1 for x <= 1): the lane counts of the reduction kernels.
inline int64_t next_pow2(int64_t x) {
  int64_t p = 1;
  while (p < x) p *= 2;
  return p;
}

// Checks that an elementwise kernel's operands are on one CUDA device and have the dtypes
// the kernel expects (`expected`: out's, then each input's). Not a template, so kernels do
// not each compile their own copy of the error formatting.
void check_elementwise_operands(const Tensor& out, std::initializer_list<const Tensor*> inputs, const DType* expected);

// Checks that each defined tensor of `ts` is contiguous (the layout `op`'s kernel indexes).
void check_contiguous(const char* op, std::initializer_list<const Tensor*> ts);

constexpr int kMaxLaunchDims = 8;
constexpr int64_t kMaxLaunchElements = std::numeric_limits<int32_t>::max();

// Calls f(piece, context) for LoopShapes that together cover `s`, each with at most
// kMaxLaunchDims dims and kMaxLaunchElements elements: dims beyond the limit are peeled one
// index at a time (more than 8 dims that do not merge is rare), and a piece with too many
// elements is halved along its outermost dim. A function pointer rather than a template, so
// the recursion is compiled once and not into every kernel's host code.
void for_each_launch_piece(iter::LoopShape s, void (*f)(const iter::LoopShape& piece, void* context), void* context);

// The scope of one op on `device`: makes the device current (restored at the end) and
// holds the stream its kernels go to.
class LaunchScope {
 public:
  explicit LaunchScope(Device device)
      : guard_(device.index), device_(device.index), stream_(current_stream(device.index)) {}
  int device() const { return device_; }
  cudaStream_t stream() const { return stream_; }

 private:
  DeviceGuard guard_;
  int device_;
  cudaStream_t stream_;
};

}  // namespace brisk::cuda
