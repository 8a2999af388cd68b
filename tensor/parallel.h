#pragma once
// Intra-op parallelism for CPU kernels over OpenMP.
//
// parallel_for splits [begin, end) into one contiguous chunk per thread and calls
// f(chunk_begin, chunk_end) on each. It runs f(begin, end) on the calling thread when the
// range holds no more than `grain_size` items, when one thread is configured, or when it is
// already inside a parallel region: Brisk never nests parallel regions, so a kernel called
// from a parallel loop simply runs serially on its thread.
//
// An exception thrown by f in any chunk is rethrown on the calling thread (the first one,
// if several chunks throw).
//
// The parallel region itself is in parallel.cc, which Brisk's build compiles with OpenMP: a
// translation unit that instantiates parallel_for (a kernel of a program of one's own) gets
// threads whether or not it is compiled with -fopenmp.
#include <algorithm>
#include <cstdint>

#include "brisk/requires_cxx17.h"

namespace brisk {

// Threads a parallel_for may use (OpenMP's max threads unless set).
int get_num_threads();
void set_num_threads(int num_threads);
bool in_parallel_region();
// Whether Brisk was compiled with OpenMP (as libtorch's at::hasOpenMP()); without it every
// parallel_for runs on the calling thread.
bool has_openmp();

namespace detail {
// Calls chunk(f, lo, hi) on num_threads contiguous chunks [lo, hi) of [begin, end), one per
// thread of an OpenMP parallel region, and rethrows the first exception of a chunk.
void parallel_chunks(int64_t begin, int64_t end, int64_t num_threads,
                     void (*chunk)(const void* f, int64_t lo, int64_t hi), const void* f);
}  // namespace detail

template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain_size, const F& f) {
  if (begin >= end) return;
  int64_t range = end - begin;
  int64_t max_chunks = (range + std::max<int64_t>(grain_size, 1) - 1) / std::max<int64_t>(grain_size, 1);
  int64_t num_threads = std::min<int64_t>(get_num_threads(), max_chunks);
  if (range <= grain_size || num_threads <= 1 || in_parallel_region()) {
    f(begin, end);
    return;
  }
  detail::parallel_chunks(
      begin, end, num_threads,
      [](const void* fn, int64_t lo, int64_t hi) { (*static_cast<const F*>(fn))(lo, hi); }, &f);
}

}  // namespace brisk
