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
#include <algorithm>
#include <cstdint>
#include <exception>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace brisk {

// Threads a parallel_for may use (OpenMP's max threads unless set).
int get_num_threads();
void set_num_threads(int num_threads);
bool in_parallel_region();

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
#ifdef _OPENMP
  std::exception_ptr error;
#pragma omp parallel num_threads(static_cast <int>(num_threads))
  {
    int64_t threads = omp_get_num_threads();
    int64_t chunk = (range + threads - 1) / threads;
    int64_t lo = begin + omp_get_thread_num() * chunk;
    int64_t hi = std::min(end, lo + chunk);
    if (lo < hi) {
      try {
        f(lo, hi);
      } catch (...) {
#pragma omp critical(brisk_parallel_for_error)
        if (!error) error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
#else
  f(begin, end);
#endif
}

}  // namespace brisk
