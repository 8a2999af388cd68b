#pragma once
// Reproducible random numbers. A Generator is a (seed, offset) pair into the counter-based
// Philox4x32-10 stream: each op reserves as many counters as it draws, so results depend
// only on the seed and the sequence of ops, and the CPU and CUDA backends draw the same
// numbers for the same tensor.
#include <cstdint>
#include <mutex>

#include "brisk/requires_cxx17.h"

namespace brisk {

class Generator {
 public:
  struct State {
    uint64_t seed = 0;
    uint64_t offset = 0;
  };

  explicit Generator(uint64_t seed = 67280421310721ULL) : state_{seed, 0} {}

  void manual_seed(uint64_t seed);
  uint64_t seed() const;
  // Reserves `count` counters and returns the first one.
  uint64_t reserve(uint64_t count);
  State get_state() const;
  void set_state(State state);

 private:
  mutable std::mutex mutex_;
  State state_;
};

// The generator used when an op is given none.
Generator& default_generator();
// Seeds the default generator (torch.manual_seed).
void manual_seed(uint64_t seed);

}  // namespace brisk
