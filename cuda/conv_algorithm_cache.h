#pragma once
// The cuDNN algorithms chosen for each convolution problem, so cuDNN's heuristics run once per
// problem and not on every call (like torch.backends.cudnn's algorithm cache). A problem is
// the pass (forward, backward data, backward filter), the device, dtype, TF32 setting, the
// shapes and strides (so the layout: contiguous or channels_last) of input, weight and output,
// and the stride, padding, dilation and groups. Thread-safe; the cache lives as long as the
// process. conv_algorithm_choices() reports what it chose, for benchmarks and logs.
//
// Free of cuDNN's headers (algorithms and math types are kept as the ints of cuDNN's enums),
// so the cache and the fallback over it (cuda/conv_fallback.h) are tested on any machine.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tensor/tensor.h"
#include "tensor/window_params.h"

namespace brisk::cuda {

enum class ConvPass : uint8_t { Forward, BackwardData, BackwardFilter };

// One usable algorithm of a problem: cuDNN's algorithm enum of that pass, the math type
// (cudnnMathType_t) to set on the convolution descriptor with it, and the workspace it needs.
struct ConvAlgorithm {
  int algo = 0;
  int math = 0;
  size_t workspace = 0;
  bool operator==(const ConvAlgorithm& other) const {
    return algo == other.algo && math == other.math && workspace == other.workspace;
  }
};

struct ConvProblem {
  std::vector<int64_t> fields;
  // The pass, shapes, dtype, device and geometry in words, for error messages (not part of
  // the key: it says what `fields` say).
  std::string description;
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

// `algorithm` failed to run `problem`: later lookups no longer offer it. When no algorithm
// is left the problem is forgotten, so the next lookup searches again.
void drop_conv_algorithm(const ConvProblem& problem, const ConvAlgorithm& algorithm);

ConvAlgorithmCacheStats conv_algorithm_cache_stats();

// What the cache runs a problem with: its first algorithm that has not failed.
struct ConvAlgorithmChoice {
  ConvPass pass;
  std::string problem;  // the pass, shapes, dtypes, layouts and geometry in words
  DType dtype;
  bool channels_last;
  ConvAlgorithm algorithm;
};
// Every cached problem's choice, in no particular order.
std::vector<ConvAlgorithmChoice> conv_algorithm_choices();
// cuDNN's names: "IMPLICIT_PRECOMP_GEMM" (the pass's algorithm enum without its prefix) and
// "TENSOR_OP_MATH" (cudnnMathType_t); "ALGO_9" or "MATH_9" for a value this list lacks.
std::string conv_algorithm_name(ConvPass pass, int algo);
std::string conv_math_name(int math);
// Whether `math` runs on tensor cores (TENSOR_OP_MATH, with or without conversion).
bool is_tensor_op_math(int math);
// One line: "forward of input [128, 16, 32, 32] bfloat16 channels_last, ...: IMPLICIT_PRECOMP_GEMM,
// TENSOR_OP_MATH, workspace 0 bytes".
std::string describe(const ConvAlgorithmChoice& choice);
// Forgets every problem (and the counts), e.g. to measure a search again.
void clear_conv_algorithm_cache();

}  // namespace brisk::cuda
