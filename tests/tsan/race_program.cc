// A program with a deliberate data race, run by tsan_selfcheck_test: `race_program threads`
// increments one int from two std::threads, `race_program openmp` from the two threads of an
// OpenMP parallel region, and `race_program openmp_clean` runs a race-free parallel loop
// (each thread writes its own elements; the region's join orders them before the read), which
// ThreadSanitizer must not report. Each prints "ran <mode> <value>" and exits 0 (under
// ThreadSanitizer, a report makes the exit status 66).
#include <omp.h>

#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace {

// Not optimized away: the races must stay loads and stores.
volatile int shared_counter = 0;

void increment_many() {
  for (int i = 0; i < 1000; ++i) shared_counter = shared_counter + 1;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  long value = 0;
  if (std::strcmp(mode, "threads") == 0) {
    std::thread a(increment_many), b(increment_many);
    a.join();
    b.join();
    value = shared_counter;
  } else if (std::strcmp(mode, "openmp") == 0) {
#pragma omp parallel num_threads(2)
    increment_many();
    value = shared_counter;
  } else if (std::strcmp(mode, "openmp_clean") == 0) {
    std::vector<long> squares(4096);
#pragma omp parallel for num_threads(2) schedule(static)
    for (long i = 0; i < 4096; ++i) squares[static_cast<size_t>(i)] = i * i;
    for (long s : squares) value += s;
  } else {
    std::fprintf(stderr, "usage: race_program threads|openmp|openmp_clean\n");
    return 2;
  }
  std::printf("ran %s %ld\n", mode, value);
  return 0;
}
