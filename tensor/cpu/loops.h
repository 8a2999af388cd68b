#pragma once
// THE elementwise loop of the CPU backend. A kernel is a functor call:
//
//   cpu_kernel(out, [](float a, float b) -> float { return a + b; }, a, b);
//
// The lambda's parameter and return types are the element types of the inputs and of `out`
// (checked against their dtypes). All operands have out's shape; inputs may be broadcast
// views (stride 0) and any operand may be strided. The loop
//   - walks the operands' iter::LoopShape (tensor/iter/loop_shape.h: size-1 dims dropped,
//     dims ordered by stride, out's first, and merged where contiguous in every operand, so
//     most tensors become one flat run);
//   - runs a plain indexed loop the compiler vectorizes when every operand is contiguous
//     along the innermost dim, or all but one input, which is then a broadcast scalar;
//   - otherwise walks rows with an N-d counter around a tight strided inner loop, or, when an
//     input is transposed relative to out, tiles of rows so its cache lines get reused;
//   - splits the elements over threads in chunks of at least kGrainSize.
#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>

#include "tensor/functors/cast.h"
#include "tensor/iter/function_traits.h"
#include "tensor/iter/loop_shape.h"
#include "tensor/parallel.h"
#include "tensor/tensor.h"

namespace brisk::cpu {

constexpr int64_t kGrainSize = 32768;
constexpr int64_t kTileRows = 16;  // along dim 1
constexpr int64_t kTileCols = 64;  // along dim 0

// Calls row(ptrs, n) for every run of elements [begin, end) (in LoopShape order) that lies in
// one innermost row; ptrs[k] points at operand k's first element of the run.
template <typename Row>
void for_each_row(const iter::LoopShape& s, int64_t begin, int64_t end, const Row& row) {
  iter::for_each_run(s.sizes, s.ndim, begin, end, [&](const int64_t* idx, int64_t n, int64_t) {
    char* ptrs[iter::kMaxOperands];
    for (int k = 0; k < s.noperands; ++k) {
      ptrs[k] = s.data[k];
      for (int d = 0; d < s.ndim; ++d) ptrs[k] += idx[d] * s.strides[k][d];
    }
    row(ptrs, n);
  });
}

// Whether an input steps through memory faster along dim 1 than along dim 0 (a transposed
// view): row by row, it would touch a new cache line for every element.
bool wants_tiles(const iter::LoopShape& s);
int64_t num_tiles(const iter::LoopShape& s);

// Like for_each_row over the tiles [begin, end) of kTileRows x kTileCols elements (dims 1 and
// 0), row by row within each tile.
template <typename Row>
void for_each_tile_row(const iter::LoopShape& s, int64_t begin, int64_t end, const Row& row) {
  const int64_t tiles0 = (s.sizes[0] + kTileCols - 1) / kTileCols;
  const int64_t tiles1 = (s.sizes[1] + kTileRows - 1) / kTileRows;
  char* ptrs[iter::kMaxOperands];
  for (int64_t t = begin; t < end; ++t) {
    int64_t t0 = t % tiles0, t1 = (t / tiles0) % tiles1, outer = t / (tiles0 * tiles1);
    char* base[iter::kMaxOperands];
    for (int k = 0; k < s.noperands; ++k) base[k] = s.data[k];
    for (int d = 2; d < s.ndim; ++d) {
      int64_t i = outer % s.sizes[d];
      outer /= s.sizes[d];
      for (int k = 0; k < s.noperands; ++k) base[k] += i * s.strides[k][d];
    }
    int64_t n = std::min(kTileCols, s.sizes[0] - t0 * kTileCols);
    int64_t j_end = std::min(s.sizes[1], (t1 + 1) * kTileRows);
    for (int64_t j = t1 * kTileRows; j < j_end; ++j) {
      for (int k = 0; k < s.noperands; ++k) {
        ptrs[k] = base[k] + j * s.strides[k][1] + t0 * kTileCols * s.strides[k][0];
      }
      row(ptrs, n);
    }
  }
}

namespace detail {

// An input of the inner loop: a pointer indexed per element, or a value loaded once.
template <typename T, bool kScalar>
struct Operand {
  const T* p;
  explicit Operand(const char* data) : p(reinterpret_cast<const T*>(data)) {}
  T operator[](int64_t i) const { return p[i]; }
};
template <typename T>
struct Operand<T, true> {
  T v;
  explicit Operand(const char* data) : v(*reinterpret_cast<const T*>(data)) {}
  T operator[](int64_t) const { return v; }
};

// Contiguous inner loop; input kScalar (if < arity) is a broadcast scalar. `flatten` inlines
// every call in it (the functor and the vec_math functions it calls): a call left out keeps
// the loop scalar, and GCC's heuristics leave large functors out (gelu's tanh forward and
// backward ran scalar, 10x slower, before it).
template <size_t kScalar, typename F, size_t... I>
__attribute__((flatten)) void flat_loop(char* const* data, int64_t n, const F& f, std::index_sequence<I...>) {
  using traits = iter::function_traits<F>;
  using Out = typename traits::result_type;
  Out* out = reinterpret_cast<Out*>(data[0]);
  std::tuple<Operand<typename traits::template arg<I>, I == kScalar>...> in{
      Operand<typename traits::template arg<I>, I == kScalar>(data[I + 1])...};
  // Each out[i] depends only on element i of the inputs, and out either is an input or does
  // not overlap one, so the iterations are independent: `omp simd` lets the compiler
  // vectorize without runtime alias checks, whatever its cost model at -O2. A 16-bit float
  // result is stored through its bits: GCC does not vectorize a loop of struct copies.
  if constexpr (is_reduced_float_v<Out>) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) out[i].bits = f(std::get<I>(in)[i]...).bits;
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) out[i] = f(std::get<I>(in)[i]...);
  }
}

template <typename F, size_t... I>
void strided_loop(char* const* data, const int64_t* strides, int64_t n, const F& f, std::index_sequence<I...>) {
  using traits = iter::function_traits<F>;
  using Out = typename traits::result_type;
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<Out*>(data[0] + i * strides[0]) =
        f(*reinterpret_cast<const typename traits::template arg<I>*>(data[I + 1] + i * strides[I + 1])...);
  }
}

template <size_t kScalar, typename F, size_t... I>
bool try_scalar_loop(char* const* data, const int64_t* strides, int64_t n, const F& f, std::index_sequence<I...> seq) {
  using traits = iter::function_traits<F>;
  bool fits = strides[kScalar + 1] == 0 &&
              ((I == kScalar || strides[I + 1] == int64_t(sizeof(typename traits::template arg<I>))) && ...);
  if (fits) flat_loop<kScalar>(data, n, f, seq);
  return fits;
}

template <typename F, size_t... I>
void inner_loop(char* const* data, const int64_t* strides, int64_t n, const F& f, std::index_sequence<I...> seq) {
  using traits = iter::function_traits<F>;
  constexpr size_t kArity = sizeof...(I);
  if (strides[0] == int64_t(sizeof(typename traits::result_type))) {
    if (((strides[I + 1] == int64_t(sizeof(typename traits::template arg<I>))) && ...)) {
      flat_loop<kArity>(data, n, f, seq);
      return;
    }
    // A broadcast scalar among several inputs (x * 2, where(mask, x, 0)) keeps the flat loop.
    if constexpr (kArity >= 2) {
      if ((try_scalar_loop<I>(data, strides, n, f, seq) || ...)) return;
    }
  }
  strided_loop(data, strides, n, f, seq);
}

template <typename T>
void check_dtype(const Tensor& t, const char* role) {
  BRISK_CHECK(t.dtype() == dtype_of<T>::value, "cpu_kernel: {} has dtype {} but the kernel expects {}", role, t.dtype(),
              dtype_name(dtype_of<T>::value));
}

template <typename F, size_t... I, typename... Inputs>
void check_dtypes(const Tensor& out, std::index_sequence<I...>, const Inputs&... inputs) {
  using traits = iter::function_traits<F>;
  check_dtype<typename traits::result_type>(out, "the output");
  (check_dtype<typename traits::template arg<I>>(inputs, "an input"), ...);
}

}  // namespace detail

// out[i] = f(inputs[i]...) over every element; see the top of this file.
template <typename F, typename... Inputs>
void cpu_kernel(const Tensor& out, const F& f, const Inputs&... inputs) {
  using traits = iter::function_traits<F>;
  static_assert(traits::arity == sizeof...(Inputs), "cpu_kernel: the functor takes one argument per input");
  static_assert(sizeof...(Inputs) + 1 <= iter::kMaxOperands, "cpu_kernel: too many inputs");
  constexpr auto seq = std::make_index_sequence<sizeof...(Inputs)>{};
  detail::check_dtypes<F>(out, seq, inputs...);
  iter::LoopShape s = iter::make_loop_shape({&out, &inputs...}, "cpu_kernel");
  if (s.numel == 0) return;
  int64_t inner_strides[iter::kMaxOperands];
  for (int k = 0; k < s.noperands; ++k) inner_strides[k] = s.strides[k][0];
  auto row = [&](char* const* ptrs, int64_t n) { detail::inner_loop(ptrs, inner_strides, n, f, seq); };
  if (wants_tiles(s)) {
    parallel_for(0, num_tiles(s), kGrainSize / (kTileRows * kTileCols),
                 [&](int64_t begin, int64_t end) { for_each_tile_row(s, begin, end, row); });
    return;
  }
  parallel_for(0, s.numel, kGrainSize, [&](int64_t begin, int64_t end) { for_each_row(s, begin, end, row); });
}

}  // namespace brisk::cpu
