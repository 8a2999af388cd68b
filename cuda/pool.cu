// CudaBackend's max, average and adaptive average pooling over NCHW tensors, all contiguous or
// all channels_last, float32, float64, bfloat16 and float16: one thread per element in memory
// order (grid-stride; in channels_last memory neighbouring threads take neighbouring channels
// of a pixel, so loads coalesce), each running
// the CPU backend's per-element function of tensor/functors/pool.h. Forwards take one output
// element each, the average backwards one input element each (gathering, no atomics); the max
// backward scatters atomically into a wider accumulator (docs/cuda_kernels.md, "Pooling").
#include <type_traits>

#include "cuda/atomic_add.cu.h"
#include "cuda/cuda_backend.h"
#include "cuda/launch.h"
#include "tensor/dispatch.h"
#include "tensor/functors/pool.h"
#include "tensor/native/ops.h"

namespace brisk::cuda {
namespace {

using functors::PoolPlane;

constexpr int kThreads = 256;

// An element of a [N, C, rows, cols] tensor from its position i in memory, with pixel_step
// 1 (NCHW: n counts planes, c is 0) or C (channels_last): its plane (n, c) and (y, x) in it.
struct Element {
  int64_t n, c, y, x;
};

__device__ __forceinline__ Element element_at(int64_t i, int64_t pixel_step, int64_t rows, int64_t cols) {
  int64_t c = i % pixel_step, pixel = i / pixel_step;
  int64_t n = pixel / (rows * cols), r = pixel - n * rows * cols;
  return {n, c, r / cols, r % cols};
}

// The first element of e's plane in a tensor of `plane_size` elements per plane.
__device__ __forceinline__ int64_t plane_offset(const Element& e, int64_t pixel_step, int64_t plane_size) {
  return e.n * plane_size * pixel_step + e.c;
}

template <typename T>
struct MaxPool {
  PoolPlane p;
  const T* x;
  T* y;
  int64_t* indices;
  __device__ void operator()(int64_t i) const {
    Element e = element_at(i, p.pixel_step, p.out_h, p.out_w);
    int64_t index;
    y[i] = functors::max_pool_at(p, x + plane_offset(e, p.pixel_step, p.in_h * p.in_w), e.y, e.x, index);
    indices[i] = index;
  }
};

// The type max pooling's backward scatters T's gradients in: float64 for float32 (exact sums,
// so the result does not depend on the atomics' order), float32 for the 16-bit types,
// float64 itself for float64.
template <typename T>
using ScatterAcc = std::conditional_t<std::is_same_v<T, float>, double, opmath_t<T>>;

template <typename T>
struct MaxPoolBackward {
  PoolPlane p;
  const T* grad_out;
  const int64_t* indices;
  ScatterAcc<T>* grad_in;  // zeroed
  __device__ void operator()(int64_t i) const {
    Element e = element_at(i, p.pixel_step, p.out_h, p.out_w);
    int64_t at = indices[i];
    // A window whose dilated taps all miss the plane has no maximum and an index outside it.
    if (at >= 0 && at < p.in_h * p.in_w) {
      atomic_add(grad_in + plane_offset(e, p.pixel_step, p.in_h * p.in_w) + at * p.pixel_step,
                 static_cast<ScatterAcc<T>>(cast<opmath_t<T>>(grad_out[i])));
    }
  }
};

// Rounds a wider accumulator into the tensor it stands in for, once per element.
template <typename Acc, typename T>
struct RoundInto {
  const Acc* from;
  T* to;
  __device__ void operator()(int64_t i) const { to[i] = cast<T>(from[i]); }
};

// Average pooling over windows (kAdaptive false) or adaptive bins (true), one output
// element per i.
template <typename T, bool kAdaptive>
struct AvgPool {
  PoolPlane p;
  const T* x;
  T* y;
  __device__ void operator()(int64_t i) const {
    Element e = element_at(i, p.pixel_step, p.out_h, p.out_w);
    const T* plane = x + plane_offset(e, p.pixel_step, p.in_h * p.in_w);
    y[i] = kAdaptive ? functors::adaptive_avg_pool_at(p, plane, e.y, e.x) : functors::avg_pool_at(p, plane, e.y, e.x);
  }
};

// The backward of AvgPool: one input element per i.
template <typename T, bool kAdaptive>
struct AvgPoolBackward {
  PoolPlane p;
  const T* grad_out;
  T* grad_in;
  __device__ void operator()(int64_t i) const {
    Element e = element_at(i, p.pixel_step, p.in_h, p.in_w);
    const T* plane = grad_out + plane_offset(e, p.pixel_step, p.out_h * p.out_w);
    grad_in[i] = kAdaptive ? functors::adaptive_avg_pool_backward_at(p, plane, e.y, e.x)
                           : functors::avg_pool_backward_at(p, plane, e.y, e.x);
  }
};

template <typename Op>
__global__ void __launch_bounds__(kThreads) elements_kernel(Op op, int64_t count) {
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) op(i);
}

// Runs op(i) for i in [0, count) on the current stream of `device`.
template <typename Op>
void for_each_element(Device device, int64_t count, const Op& op) {
  if (count == 0) return;
  LaunchScope scope(device);
  elements_kernel<<<grid_size(scope.device(), count, kThreads), kThreads, 0, scope.stream()>>>(op, count);
  BRISK_CUDA_CHECK_LAUNCH();
}

// The plane geometry of a pooling call on `in` and `out`, after checking the backend's
// contract on its tensors `ts`: all contiguous, or, when one is not, all channels_last (then
// the plane's pixel step is the channels).
PoolPlane plane_of(const char* op, std::initializer_list<const Tensor*> ts, const Tensor& in, const Tensor& out,
                   const Pool2dParams& q = {}) {
  bool channels_last = false;
  for (const Tensor* t : ts) channels_last |= !t->is_contiguous();
  const MemoryFormat format = channels_last ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous;
  for (const Tensor* t : ts) {
    BRISK_CHECK(t->is_contiguous(format),
                "{}: the CUDA kernels take tensors all contiguous or all channels_last, got {} with strides {}", op,
                t->describe(), t->strides());
  }
  return functors::pool_plane(q, in.size(2), in.size(3), out.size(2), out.size(3), channels_last ? in.size(1) : 1);
}

using PoolTypes = TypeList<float, double, BFloat16, Half>;

// Runs Pool<T, kAdaptive>{p, from, to} on each element of `to`: AvgPool (to = output, from =
// input) or AvgPoolBackward (to = grad_input, from = grad_output).
template <template <typename, bool> class Pool, bool kAdaptive>
void run_avg_pool(const char* op, const Tensor& to, const Tensor& from, const PoolPlane& p) {
  dispatch(PoolTypes{}, to.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for_each_element(to.device(), to.numel(), Pool<T, kAdaptive>{p, from.data_ptr<T>(), to.data_ptr<T>()});
  });
}

}  // namespace

void CudaBackend::max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& input,
                             const Pool2dParams& params) {
  PoolPlane p = plane_of("max_pool2d", {&out, &indices, &input}, input, out, params);
  dispatch(PoolTypes{}, input.dtype(), "max_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    MaxPool<T> op{p, input.data_ptr<T>(), out.data_ptr<T>(), indices.data_ptr<int64_t>()};
    for_each_element(input.device(), out.numel(), op);
  });
}

void CudaBackend::max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices) {
  PoolPlane p = plane_of("max_pool2d_backward", {&grad_input, &grad_out, &indices}, grad_input, grad_out);
  dispatch(PoolTypes{}, grad_input.dtype(), "max_pool2d_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = ScatterAcc<T>;
    constexpr bool kStandIn = !std::is_same_v<Acc, T>;
    // In grad_input's layout, so that RoundInto maps memory position to memory position.
    const MemoryFormat format = p.pixel_step == 1 ? MemoryFormat::Contiguous : MemoryFormat::ChannelsLast;
    Tensor acc = kStandIn ? native::empty(grad_input.sizes(),
                                          TensorOptions(dtype_of<Acc>::value).device(grad_input.device()).memory_format(format))
                          : grad_input;
    {
      LaunchScope scope(grad_input.device());
      BRISK_CUDA_CHECK(cudaMemsetAsync(acc.data_ptr<Acc>(), 0, acc.numel() * sizeof(Acc), scope.stream()));
    }
    MaxPoolBackward<T> op{p, grad_out.data_ptr<T>(), indices.data_ptr<int64_t>(), acc.data_ptr<Acc>()};
    for_each_element(grad_input.device(), grad_out.numel(), op);
    if constexpr (kStandIn) {
      for_each_element(grad_input.device(), grad_input.numel(),
                       RoundInto<Acc, T>{acc.data_ptr<Acc>(), grad_input.data_ptr<T>()});
    }
  });
}

void CudaBackend::avg_pool2d(const Tensor& out, const Tensor& input, const Pool2dParams& params) {
  run_avg_pool<AvgPool, false>("avg_pool2d", out, input, plane_of("avg_pool2d", {&out, &input}, input, out, params));
}

void CudaBackend::avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Pool2dParams& params) {
  run_avg_pool<AvgPoolBackward, false>(
      "avg_pool2d_backward", grad_input, grad_out,
      plane_of("avg_pool2d_backward", {&grad_input, &grad_out}, grad_input, grad_out, params));
}

void CudaBackend::adaptive_avg_pool2d(const Tensor& out, const Tensor& input) {
  run_avg_pool<AvgPool, true>("adaptive_avg_pool2d", out, input,
                              plane_of("adaptive_avg_pool2d", {&out, &input}, input, out));
}

void CudaBackend::adaptive_avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out) {
  run_avg_pool<AvgPoolBackward, true>(
      "adaptive_avg_pool2d_backward", grad_input, grad_out,
      plane_of("adaptive_avg_pool2d_backward", {&grad_input, &grad_out}, grad_input, grad_out));
}

}  // namespace brisk::cuda
