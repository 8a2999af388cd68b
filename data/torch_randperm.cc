#include "data/torch_randperm.h"

#include <limits>
#include <numeric>
#include <random>
#include <utility>

#include "tensor/error.h"

namespace brisk::data {

std::vector<int64_t> torch_randperm(int64_t n, uint64_t seed) {
  BRISK_CHECK(n >= 0, "torch_randperm: n must be non-negative, got {}", n);
  // at::mt19937 keeps the seed's low 32 bits and initializes like std::mt19937.
  std::mt19937 engine(static_cast<uint32_t>(seed));
  std::vector<int64_t> perm(static_cast<size_t>(n));
  if (n < std::numeric_limits<uint32_t>::max() / 20) {
    std::iota(perm.begin(), perm.end(), int64_t{0});
    for (int64_t i = 0; i + 1 < n; ++i) {
      int64_t z = static_cast<int64_t>(engine() % static_cast<uint64_t>(n - i));
      std::swap(perm[i], perm[z + i]);
    }
    return perm;
  }
  for (int64_t i = 0; i < n; ++i) {
    uint64_t high = engine();
    uint64_t low = engine();
    int64_t z = static_cast<int64_t>(((high << 32) | low) % static_cast<uint64_t>(i + 1));
    perm[i] = perm[z];
    perm[z] = i;
  }
  return perm;
}

}  // namespace brisk::data
