// tensor/parallel.h from a translation unit compiled without OpenMP (BUILD: copts
// -fno-openmp), as a program of one's own that includes Brisk's headers without -fopenmp is:
// parallel_for still runs its chunks on several threads, because its parallel region is
// compiled into Brisk, and has_openmp() reports how Brisk itself was compiled.
#include "tensor/parallel.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#ifdef _OPENMP
#error "tests/tensor/parallel_test.cc must be compiled without OpenMP (-fno-openmp in its BUILD target)"
#endif

namespace brisk {
namespace {

TEST_CASE("Brisk's build compiles parallel.cc with OpenMP") { REQUIRE(has_openmp()); }

TEST_CASE("parallel_for uses threads in a translation unit compiled without OpenMP") {
  int before = get_num_threads();
  set_num_threads(4);
  std::mutex mutex;
  std::set<std::thread::id> threads;
  std::atomic<int> chunks{0};
  std::vector<std::atomic<int>> hits(4000);
  parallel_for(0, 4000, 1, [&](int64_t b, int64_t e) {
    chunks++;
    for (int64_t i = b; i < e; ++i) hits[i]++;
    std::lock_guard<std::mutex> lock(mutex);
    threads.insert(std::this_thread::get_id());
  });
  set_num_threads(before);
  REQUIRE(chunks.load() == 4);
  REQUIRE(threads.size() == 4);
  for (auto& h : hits) REQUIRE(h.load() == 1);
}

}  // namespace
}  // namespace brisk
