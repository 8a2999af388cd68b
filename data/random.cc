#include "data/random.h"

#include "tensor/error.h"
#include "tensor/functors/philox.h"

namespace brisk::data {
namespace {

thread_local Generator* current_sample_generator = nullptr;

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

Philox4x32 draw(Generator& gen) {
  uint64_t seed = gen.seed();
  return philox4x32(seed, gen.reserve(1));
}

}  // namespace

uint64_t derive_seed(uint64_t seed, uint64_t stream) { return splitmix64(splitmix64(seed) ^ stream); }

double uniform(Generator& gen) {
  Philox4x32 r = draw(gen);
  return uniform_double(r.v[0], r.v[1]);
}

int64_t uniform_int(Generator& gen, int64_t n) {
  BRISK_CHECK(n > 0, "uniform_int: expected a positive bound, got {}", n);
  Philox4x32 r = draw(gen);
  uint64_t bits = static_cast<uint64_t>(r.v[0]) << 32 | r.v[1];
  // The modulo bias is below n / 2^64: negligible for crop offsets and indices.
  return static_cast<int64_t>(bits % static_cast<uint64_t>(n));
}

Generator& sample_generator() {
  return current_sample_generator != nullptr ? *current_sample_generator : default_generator();
}

SampleGeneratorScope::SampleGeneratorScope(Generator& gen) : previous_(current_sample_generator) {
  current_sample_generator = &gen;
}

SampleGeneratorScope::~SampleGeneratorScope() { current_sample_generator = previous_; }

}  // namespace brisk::data
