#include "data/sampler.h"

#include <numeric>

#include "autograd/ops.h"
#include "data/random.h"
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

RandomSampler::RandomSampler(int64_t size, uint64_t seed) : size_(size), seed_(seed) {
  BRISK_CHECK(size >= 0, "RandomSampler: size must be non-negative, got {}", size);
}

std::vector<int64_t> RandomSampler::indices() const {
  Generator gen(derive_seed(seed_, static_cast<uint64_t>(epoch_)));
  return randperm(size_, &gen).to_vector<int64_t>();
}

}  // namespace brisk::data
