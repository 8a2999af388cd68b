#pragma once
// Randomness in data pipelines: seeds derived from a base seed, draws from a Generator, and
// the per-sample generator that random transforms use when they were given none.
//
// Inside a DataLoader every sample is loaded with its own generator, seeded from the
// loader's seed, the epoch and the sample's position in the epoch. Augmentations therefore
// depend only on those, not on which worker thread loads the sample or how many there are.
#include <cstdint>

#include "tensor/generator.h"

namespace brisk::data {

// A well-mixed seed for the stream `stream` of `seed` (SplitMix64 of both), so that streams
// 0, 1, 2, ... of one seed are unrelated.
uint64_t derive_seed(uint64_t seed, uint64_t stream);

// Uniform in [0, 1), drawing one counter from `gen`.
double uniform(Generator& gen);
// Uniform integer in [0, n), n > 0, drawing one counter from `gen`.
int64_t uniform_int(Generator& gen, int64_t n);

// The generator of the sample this thread is loading (see SampleGeneratorScope); outside
// one, brisk::default_generator().
Generator& sample_generator();

// Makes `gen` this thread's sample generator for the scope's lifetime (the DataLoader sets
// one per sample; tests can too). Scopes nest.
class SampleGeneratorScope {
 public:
  explicit SampleGeneratorScope(Generator& gen);
  ~SampleGeneratorScope();
  SampleGeneratorScope(const SampleGeneratorScope&) = delete;
  SampleGeneratorScope& operator=(const SampleGeneratorScope&) = delete;

 private:
  Generator* previous_;
};

}  // namespace brisk::data
