#include "tensor/parallel.h"

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

}  // namespace brisk
