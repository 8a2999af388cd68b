#include "tensor/parallel.h"

#include <exception>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "tensor/error.h"

namespace brisk {

int get_num_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

void set_num_threads(int num_threads) {
  BRISK_CHECK(num_threads > 0, "set_num_threads: expected a positive number of threads, got {}", num_threads);
#ifdef _OPENMP
  omp_set_num_threads(num_threads);
#endif
}

bool in_parallel_region() {
#ifdef _OPENMP
  return omp_in_parallel() != 0;
#else
  return false;
#endif
}

bool has_openmp() {
#ifdef _OPENMP
  return true;
#else
  return false;
#endif
}

namespace detail {

void parallel_chunks(int64_t begin, int64_t end, int64_t num_threads,
                     void (*chunk)(const void* f, int64_t lo, int64_t hi), const void* f) {
#ifdef _OPENMP
  int64_t range = end - begin;
  std::exception_ptr error;
#pragma omp parallel num_threads(static_cast <int>(num_threads))
  {
    int64_t threads = omp_get_num_threads();
    int64_t size = (range + threads - 1) / threads;
    int64_t lo = begin + omp_get_thread_num() * size;
    int64_t hi = std::min(end, lo + size);
    if (lo < hi) {
      try {
        chunk(f, lo, hi);
      } catch (...) {
#pragma omp critical(brisk_parallel_for_error)
        if (!error) error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
#else
  (void)num_threads;
  chunk(f, begin, end);
#endif
}

}  // namespace detail

}  // namespace brisk
