#pragma once
// The cuDNN algorithms chosen for each convolution problem, so cuDNN's heuristics run once per
// problem and not on every call (like torch.backends.cudnn's algorithm cache). A problem is
// the pass (forward, backward data, backward filter), the device, dtype, TF32 setting, the
// shapes and strides of input, weight and output, and the stride, padding, dilation and
// groups. Thread-safe; the cache lives as long as the process.
#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "tensor/tensor.h"
#include "tensor/window_params.h"

namespace brisk::cuda {

enum class ConvPass : uint8_t { Forward, BackwardData, BackwardFilter };

// One usable algorithm of a problem: cuDNN's algorithm enum of that pass, the math type to
// set on the convolution descriptor with it, and the workspace it needs.
struct ConvAlgorithm {
  int algo = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  size_t workspace = 0;
};

struct ConvProblem {
  std::vector<int64_t> fields;
  bool operator==(const ConvProblem& other) const { return fields == other.fields; }
};

ConvProblem conv_problem(ConvPass pass, const Tensor& input, const Tensor& weight, const Tensor& output,
                         const Conv2dParams& params, bool tf32);

struct ConvAlgorithmCacheStats {
  int64_t entries = 0;
  int64_t hits = 0;    // lookups answered from the cache
  int64_t misses = 0;  // lookups that ran the search
};

// The algorithms of `problem`, best first: from the cache, else from `search` (which runs
// without the cache's lock held), then cached.
std::vector<ConvAlgorithm> conv_algorithms(const ConvProblem& problem,
                                           const std::function<std::vector<ConvAlgorithm>()>& search);

ConvAlgorithmCacheStats conv_algorithm_cache_stats();
// Forgets every problem (and the counts), e.g. to measure a search again.
void clear_conv_algorithm_cache();

}  // namespace brisk::cuda
