#pragma once
// THE reduction loop of the CPU backend: folds a reduction functor (tensor/functors/reduce.h)
// over a sorted set of dims of `in` into keepdim-shaped outputs, walking their
// iter::ReduceShape (tensor/iter/reduce_shape.h).
//
//   reduce_loop<In>(shape, op, [&](char* const* outs, const Op::acc_t& acc) { ... });
//
// calls the writer once per output element with pointers to that element in each output.
// Work splits over threads by outputs when there are enough of them; otherwise (a full
// reduction, or a few long ones) the reduced elements split into per-thread partial folds
// that are combined in order. Each output is folded either
//   - along its own elements ("horizontal"), in several independent accumulators when the
//     functor allows reordering, or
//   - together with its neighbours ("vertical"), when neighbouring outputs are adjacent in
//     memory but the reduced elements are not (summing the rows of a [N, C] tensor): then a
//     block of accumulators advances one input row at a time, a loop the compiler vectorizes.
#include <algorithm>
#include <vector>

#include "tensor/cpu/loops.h"
#include "tensor/functors/cast.h"
#include "tensor/iter/reduce_shape.h"

namespace brisk::cpu {

namespace detail {

constexpr int kLanes = 8;
constexpr int64_t kVerticalBlock = 256;

// Calls f(byte_offset, n, r) for each run of reduced positions [r0, r1) along the innermost
// reduced dim; r is the run's first linear position.
template <typename F>
void for_each_reduced_run(const iter::ReduceShape& s, int64_t r0, int64_t r1, const F& f) {
  iter::for_each_run(s.red_sizes, s.nreduced, r0, r1, [&](const int64_t* idx, int64_t n, int64_t r) {
    int64_t offset = 0;
    for (int d = 0; d < s.nreduced; ++d) offset += idx[d] * s.red_strides[d];
    f(offset, n, r);
  });
}

// Calls f(o, n, in_ptr, out_ptrs) for each run of outputs [o0, o1) along the innermost kept
// dim; pointers are those of the run's first output.
template <typename F>
void for_each_output_run(const iter::ReduceShape& s, int64_t o0, int64_t o1, const F& f) {
  iter::for_each_run(s.kept_sizes, s.nkept, o0, o1, [&](const int64_t* idx, int64_t n, int64_t o) {
    const char* in = s.in;
    char* out[iter::kMaxReduceOutputs];
    for (int d = 0; d < s.nkept; ++d) in += idx[d] * s.kept_in_strides[d];
    for (int k = 0; k < s.nout; ++k) {
      out[k] = s.out[k];
      for (int d = 0; d < s.nkept; ++d) out[k] += idx[d] * s.kept_out_strides[k][d];
    }
    f(o, n, in, out);
  });
}

// Folds n elements starting at p, `stride` bytes apart, whose first linear position is r.
template <typename In, typename Op>
typename Op::acc_t fold_run(const Op& op, typename Op::acc_t acc, const char* p, int64_t stride, int64_t n, int64_t r) {
  using I = typename Op::input_t;
  using Acc = typename Op::acc_t;
  if (stride != int64_t(sizeof(In))) {
    for (int64_t i = 0; i < n; ++i) acc = op.reduce(acc, cast<I>(*reinterpret_cast<const In*>(p + i * stride)), r + i);
    return acc;
  }
  const In* x = reinterpret_cast<const In*>(p);
  int64_t i = 0;
  if constexpr (Op::kReorderable) {
    if (n >= 2 * kLanes) {
      Acc lanes[kLanes];
      lanes[0] = acc;
      for (int l = 1; l < kLanes; ++l) lanes[l] = op.identity();
      for (; i + kLanes <= n; i += kLanes) {
        for (int l = 0; l < kLanes; ++l) lanes[l] = op.reduce(lanes[l], cast<I>(x[i + l]), r + i + l);
      }
      for (int width = kLanes / 2; width > 0; width /= 2) {
        for (int l = 0; l < width; ++l) lanes[l] = op.combine(lanes[l], lanes[l + width]);
      }
      acc = lanes[0];
    }
  }
  for (; i < n; ++i) acc = op.reduce(acc, cast<I>(x[i]), r + i);
  return acc;
}

// Folds reduced positions [r0, r1) of the outputs [o0, o1), handing each result to
// sink(o, out_ptrs, acc).
template <typename In, typename Op, typename Sink>
void fold_outputs(const iter::ReduceShape& s, const Op& op, int64_t o0, int64_t o1, int64_t r0, int64_t r1,
                  const Sink& sink) {
  using Acc = typename Op::acc_t;
  using I = typename Op::input_t;
  bool vertical =
      s.kept_in_strides[0] == int64_t(sizeof(In)) && s.kept_sizes[0] > 1 && s.red_strides[0] != int64_t(sizeof(In));
  for_each_output_run(s, o0, o1, [&](int64_t o, int64_t n, const char* in, char* const* out) {
    char* ptrs[iter::kMaxReduceOutputs];
    auto emit = [&](int64_t j, const Acc& acc) {
      for (int k = 0; k < s.nout; ++k) ptrs[k] = out[k] + j * s.kept_out_strides[k][0];
      sink(o + j, ptrs, acc);
    };
    if (!vertical) {
      for (int64_t j = 0; j < n; ++j) {
        const char* base = in + j * s.kept_in_strides[0];
        Acc acc = op.identity();
        for_each_reduced_run(s, r0, r1, [&](int64_t offset, int64_t len, int64_t r) {
          acc = fold_run<In>(op, acc, base + offset, s.red_strides[0], len, r);
        });
        emit(j, acc);
      }
      return;
    }
    Acc accs[kVerticalBlock];
    for (int64_t j0 = 0; j0 < n; j0 += kVerticalBlock) {
      int64_t width = std::min(kVerticalBlock, n - j0);
      for (int64_t j = 0; j < width; ++j) accs[j] = op.identity();
      const char* base = in + j0 * int64_t(sizeof(In));
      for_each_reduced_run(s, r0, r1, [&](int64_t offset, int64_t len, int64_t r) {
        for (int64_t i = 0; i < len; ++i) {
          const In* x = reinterpret_cast<const In*>(base + offset + i * s.red_strides[0]);
#pragma omp simd
          for (int64_t j = 0; j < width; ++j) accs[j] = op.reduce(accs[j], cast<I>(x[j]), r + i);
        }
      });
      for (int64_t j = 0; j < width; ++j) emit(j0 + j, accs[j]);
    }
  });
}

}  // namespace detail

template <typename In, typename Op, typename Write>
void reduce_loop(const iter::ReduceShape& s, const Op& op, const Write& write) {
  using Acc = typename Op::acc_t;
  if (s.num_outputs == 0) return;
  auto write_sink = [&](int64_t, char* const* out, const Acc& acc) { write(out, acc); };
  int64_t threads = get_num_threads();
  bool split_outputs =
      s.num_outputs >= 2 * threads || s.num_reduced < 2 * kGrainSize || threads == 1 || in_parallel_region();
  if (split_outputs) {
    int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, s.num_reduced));
    parallel_for(0, s.num_outputs, grain, [&](int64_t o0, int64_t o1) {
      detail::fold_outputs<In>(s, op, o0, o1, 0, s.num_reduced, write_sink);
    });
    return;
  }
  // Few outputs, long reductions: each chunk of the reduced positions folds every output.
  int64_t chunks = std::min(threads, s.num_reduced / kGrainSize);
  int64_t chunk_len = (s.num_reduced + chunks - 1) / chunks;
  std::vector<Acc> partials(chunks * s.num_outputs);
  parallel_for(0, chunks, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      int64_t r0 = c * chunk_len, r1 = std::min(s.num_reduced, r0 + chunk_len);
      detail::fold_outputs<In>(s, op, 0, s.num_outputs, r0, r1,
                               [&](int64_t o, char* const*, const Acc& acc) { partials[c * s.num_outputs + o] = acc; });
    }
  });
  detail::for_each_output_run(s, 0, s.num_outputs, [&](int64_t o, int64_t n, const char*, char* const* out) {
    char* ptrs[iter::kMaxReduceOutputs];
    for (int64_t j = 0; j < n; ++j) {
      Acc acc = partials[o + j];
      for (int64_t c = 1; c < chunks; ++c) acc = op.combine(acc, partials[c * s.num_outputs + o + j]);
      for (int k = 0; k < s.nout; ++k) ptrs[k] = out[k] + j * s.kept_out_strides[k][0];
      write(ptrs, acc);
    }
  });
}

}  // namespace brisk::cpu
