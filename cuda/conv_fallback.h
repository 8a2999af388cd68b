#pragma once
// Running one convolution pass with the first of its cuDNN algorithms that works: one that
// fails to run is dropped from the problem's cache entry, one whose workspace did not fit stays
// (why: docs/cuda_kernels.md, "Convolution through cuDNN").
//
// Free of cuDNN: the caller's attempt makes the library call and says how it ended, so this
// logic is tested on any machine with a fake attempt (tests/cuda/conv_fallback_test.cc).
#include <functional>
#include <string>
#include <vector>

#include "cuda/conv_algorithm_cache.h"

namespace brisk::cuda {

// How trying one algorithm ended.
struct ConvAttempt {
  enum class Outcome { Ran, OutOfMemory, Failed };
  Outcome outcome = Outcome::Ran;
  // Why it did not run: the library's status, or the allocator's message.
  std::string status;

  static ConvAttempt ran() { return {}; }
  static ConvAttempt out_of_memory(std::string why) { return {Outcome::OutOfMemory, std::move(why)}; }
  static ConvAttempt failed(std::string why) { return {Outcome::Failed, std::move(why)}; }
};

// Runs `problem` with its algorithms (conv_algorithms(problem, search), best first): calls
// attempt(algorithm) for each in turn until one runs, dropping those that failed from the
// cache. Raises brisk::Error when none runs, naming the problem and every algorithm tried with
// how it ended.
void run_with_fallback(const ConvProblem& problem, const std::function<std::vector<ConvAlgorithm>()>& search,
                       const std::function<ConvAttempt(const ConvAlgorithm&)>& attempt);

}  // namespace brisk::cuda
