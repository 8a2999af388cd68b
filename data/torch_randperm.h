#pragma once
// torch_randperm(n, seed): the permutation that PyTorch's CPU randperm draws,
//
//   g = torch.Generator(); g.manual_seed(seed); torch.randperm(n, generator=g)
//
// reproduced exactly: a Mersenne Twister (mt19937) seeded with the low 32 bits of `seed`,
// as torch's CPUGeneratorImpl, and torch's Fisher-Yates loop over it. DistributedSampler
// uses it so that a job sees the same samples in the same order as under PyTorch. (Brisk's
// own randomness, brisk::randperm included, is Philox and does not match torch's stream.)
//
// For n >= 2^32 / 20 torch switches to an inside-out shuffle drawing 64-bit numbers; that
// branch follows torch's source but is too large to check against a PyTorch fixture.
#include <cstdint>
#include <vector>

namespace brisk::data {

std::vector<int64_t> torch_randperm(int64_t n, uint64_t seed);

}  // namespace brisk::data
