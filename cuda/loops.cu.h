#pragma once
// THE elementwise launch of the CUDA backend, the counterpart of cpu_kernel (tensor/cpu/loops.h):
//
//   gpu_kernel(out, AddFunctor{...}, a, b);
//
// runs out[i] = f(inputs[i]...) for every element, on the current stream of out's device.
// f is a functor whose const operator() is __device__; its parameter and return types are
// the element types of the inputs and of `out` (checked against their dtypes). All operands
// have out's shape; inputs may be broadcast (stride 0) and any operand may be strided.
//
// Contiguous operands whose addresses allow it take a kernel that moves kVecBytes per operand
// and thread at once (float32/bfloat16/float16 ops only: worth_vectorizing); anything else the
// strided kernel over merged dims (docs/cuda_kernels.md, "Choices").
#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "cuda/launch.h"
#include "cuda/offset_calculator.cu.h"
#include "tensor/iter/function_traits.h"
#include "tensor/iter/loop_shape.h"

namespace brisk::cuda {

constexpr int kElementwiseThreads = 256;
// Elements each thread has in flight in the strided kernel.
constexpr int kStridedUnroll = 4;
constexpr int kVecBytes = 16;

using iter::function_traits;

namespace detail {

template <typename T, int kVec>
struct alignas(sizeof(T) * kVec) Packed {
  T v[kVec];
};

template <typename T, int kVec>
__device__ __forceinline__ Packed<T, kVec> load_packed(const char* base, int64_t vec_index) {
  return reinterpret_cast<const Packed<T, kVec>*>(base)[vec_index];
}

// Elements per thread in the vectorized kernel: kVecBytes of the widest operand (the others,
// a bool mask say, take narrower accesses).
template <typename F, size_t... I>
constexpr int vec_width(std::index_sequence<I...>) {
  using traits = function_traits<F>;
  size_t widest = std::max({sizeof(typename traits::result_type), sizeof(typename traits::template arg<I>)...});
  return static_cast<int>(kVecBytes / widest);
}

template <int kVec, typename F>
__global__ void __launch_bounds__(kElementwiseThreads)
    vectorized_kernel(F f, int64_t n, Array<char*, function_traits<F>::arity + 1> data) {
  using traits = function_traits<F>;
  using Out = typename traits::result_type;
  constexpr size_t kArity = traits::arity;
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int64_t nvec = n / kVec;
  for (int64_t v = first; v < nvec; v += step) {
    Packed<Out, kVec> out;
    if constexpr (kArity == 0) {
#pragma unroll
      for (int j = 0; j < kVec; ++j) out.v[j] = f();
    } else if constexpr (kArity == 1) {
      auto a = load_packed<typename traits::template arg<0>, kVec>(data[1], v);
#pragma unroll
      for (int j = 0; j < kVec; ++j) out.v[j] = f(a.v[j]);
    } else if constexpr (kArity == 2) {
      auto a = load_packed<typename traits::template arg<0>, kVec>(data[1], v);
      auto b = load_packed<typename traits::template arg<1>, kVec>(data[2], v);
#pragma unroll
      for (int j = 0; j < kVec; ++j) out.v[j] = f(a.v[j], b.v[j]);
    } else {
      auto a = load_packed<typename traits::template arg<0>, kVec>(data[1], v);
      auto b = load_packed<typename traits::template arg<1>, kVec>(data[2], v);
      auto c = load_packed<typename traits::template arg<2>, kVec>(data[3], v);
#pragma unroll
      for (int j = 0; j < kVec; ++j) out.v[j] = f(a.v[j], b.v[j], c.v[j]);
    }
    reinterpret_cast<Packed<Out, kVec>*>(data[0])[v] = out;
  }
  // The last n % kVec elements, one per thread.
  for (int64_t i = nvec * kVec + first; i < n; i += step) {
    Out* out = reinterpret_cast<Out*>(data[0]);
    if constexpr (kArity == 0) {
      out[i] = f();
    } else if constexpr (kArity == 1) {
      out[i] = f(reinterpret_cast<const typename traits::template arg<0>*>(data[1])[i]);
    } else if constexpr (kArity == 2) {
      out[i] = f(reinterpret_cast<const typename traits::template arg<0>*>(data[1])[i],
                 reinterpret_cast<const typename traits::template arg<1>*>(data[2])[i]);
    } else {
      out[i] = f(reinterpret_cast<const typename traits::template arg<0>*>(data[1])[i],
                 reinterpret_cast<const typename traits::template arg<1>*>(data[2])[i],
                 reinterpret_cast<const typename traits::template arg<2>*>(data[3])[i]);
    }
  }
}

template <typename F, size_t... I>
__device__ __forceinline__ typename function_traits<F>::result_type call_at(
    const F& f, const Array<char*, function_traits<F>::arity + 1>& data,
    const Array<int64_t, function_traits<F>::arity + 1>& offsets, std::index_sequence<I...>) {
  using traits = function_traits<F>;
  return f(*reinterpret_cast<const typename traits::template arg<I>*>(data[I + 1] + offsets[I + 1])...);
}

template <typename F>
__global__ void __launch_bounds__(kElementwiseThreads)
    strided_kernel(F f, uint32_t n, OffsetCalculator<function_traits<F>::arity + 1> calc,
                   Array<char*, function_traits<F>::arity + 1> data) {
  using traits = function_traits<F>;
  using Out = typename traits::result_type;
  constexpr auto seq = std::make_index_sequence<traits::arity>{};
  uint32_t step = gridDim.x * blockDim.x;
  // Loads of kStridedUnroll elements are issued before the first store, so their latencies
  // overlap; indices stay below 2^31 + kStridedUnroll * step, inside uint32_t.
  for (uint32_t i0 = blockIdx.x * blockDim.x + threadIdx.x; i0 < n; i0 += step * kStridedUnroll) {
    Out results[kStridedUnroll];
    int64_t out_offsets[kStridedUnroll];
#pragma unroll
    for (int u = 0; u < kStridedUnroll; ++u) {
      uint32_t i = i0 + u * step;
      if (i < n) {
        auto offsets = calc.get(i);
        out_offsets[u] = offsets[0];
        results[u] = call_at(f, data, offsets, seq);
      }
    }
#pragma unroll
    for (int u = 0; u < kStridedUnroll; ++u) {
      if (i0 + u * step < n) *reinterpret_cast<Out*>(data[0] + out_offsets[u]) = results[u];
    }
  }
}

template <typename F, size_t... I>
constexpr std::array<DType, sizeof...(I) + 1> operand_dtypes(std::index_sequence<I...>) {
  using traits = function_traits<F>;
  return {dtype_of<typename traits::result_type>::value, dtype_of<typename traits::template arg<I>>::value...};
}

// The vectorized kernel is compiled only where its speed matters, for the float32 and 16-bit
// float ops of training (and their bool masks); other dtypes take the strided kernel, whose
// one-dim case costs little more, to keep the number of kernels (and nvcc's time) down.
template <size_t N>
constexpr bool worth_vectorizing(const std::array<DType, N>& dtypes) {
  bool any_float = false;
  for (DType t : dtypes) {
    if (t != kFloat32 && t != kBFloat16 && t != kFloat16 && t != kBool) return false;
    any_float = any_float || t != kBool;
  }
  return any_float;
}

template <typename F, size_t... I>
bool vectorizable(const iter::LoopShape& s, int vec, std::index_sequence<I...>) {
  using traits = function_traits<F>;
  constexpr int64_t kSizes[] = {int64_t(sizeof(typename traits::result_type)),
                                int64_t(sizeof(typename traits::template arg<I>))...};
  if (s.ndim != 1) return false;
  for (int k = 0; k < s.noperands; ++k) {
    if (s.strides[k][0] != kSizes[k]) return false;
    if (reinterpret_cast<uintptr_t>(s.data[k]) % (kSizes[k] * vec) != 0) return false;
  }
  return true;
}

// Launches strided_kernel over one launch piece; `context` is the StridedLaunch.
template <typename F>
struct StridedLaunch {
  const F& f;
  const LaunchScope& scope;

  static void run(const iter::LoopShape& piece, void* context) {
    constexpr int kOperands = function_traits<F>::arity + 1;
    const auto& self = *static_cast<const StridedLaunch*>(context);
    Array<char*, kOperands> data;
    for (int k = 0; k < kOperands; ++k) data[k] = piece.data[k];
    unsigned blocks = grid_size(self.scope.device(), piece.numel, kElementwiseThreads, kStridedUnroll);
    strided_kernel<<<blocks, kElementwiseThreads, 0, self.scope.stream()>>>(
        self.f, static_cast<uint32_t>(piece.numel), make_offset_calculator<kOperands>(piece), data);
    BRISK_CUDA_CHECK_LAUNCH();
  }
};

}  // namespace detail

// out[i] = f(inputs[i]...) over every element; see the top of this file.
template <typename F, typename... Inputs>
void gpu_kernel(const Tensor& out, const F& f, const Inputs&... inputs) {
  using traits = function_traits<F>;
  constexpr int kOperands = sizeof...(Inputs) + 1;
  static_assert(traits::arity == sizeof...(Inputs), "gpu_kernel: the functor takes one argument per input");
  static_assert(kOperands <= iter::kMaxOperands, "gpu_kernel: too many inputs");
  constexpr auto seq = std::make_index_sequence<sizeof...(Inputs)>{};
  constexpr auto dtypes = detail::operand_dtypes<F>(seq);
  check_elementwise_operands(out, {&inputs...}, dtypes.data());
  if (out.numel() == 0) return;
  iter::LoopShape shape = iter::make_loop_shape({&out, &inputs...}, "gpu_kernel");
  LaunchScope scope(out.device());
  if constexpr (detail::worth_vectorizing(dtypes)) {
    constexpr int kVec = detail::vec_width<F>(seq);
    if (detail::vectorizable<F>(shape, kVec, seq)) {
      Array<char*, kOperands> data;
      for (int k = 0; k < kOperands; ++k) data[k] = shape.data[k];
      unsigned blocks = grid_size(scope.device(), shape.numel, kElementwiseThreads, kVec);
      detail::vectorized_kernel<kVec><<<blocks, kElementwiseThreads, 0, scope.stream()>>>(f, shape.numel, data);
      BRISK_CUDA_CHECK_LAUNCH();
      return;
    }
  }
  detail::StridedLaunch<F> launch{f, scope};
  for_each_launch_piece(shape, &detail::StridedLaunch<F>::run, &launch);
}

}  // namespace brisk::cuda
