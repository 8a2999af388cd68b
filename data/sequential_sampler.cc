#include "data/sequential_sampler.h"

#include <numeric>

#include "tensor/error.h"

namespace brisk::data {

SequentialSampler::SequentialSampler(int64_t size) : size_(size) {
  BRISK_CHECK(size >= 0, "SequentialSampler: size must be non-negative, got {}", size);
}

std::vector<int64_t> SequentialSampler::indices() const {
  std::vector<int64_t> out(static_cast<size_t>(size_));
  std::iota(out.begin(), out.end(), int64_t{0});
  return out;
}

}  // namespace brisk::data
