#include "cuda/conv_fallback.h"

#include <fmt/format.h>

#include "tensor/error.h"

namespace brisk::cuda {

void run_with_fallback(const ConvProblem& problem, const std::function<std::vector<ConvAlgorithm>()>& search,
                       const std::function<ConvAttempt(const ConvAlgorithm&)>& attempt) {
  std::vector<ConvAlgorithm> algorithms = conv_algorithms(problem, search);
  BRISK_CHECK(!algorithms.empty(), "cuDNN offers no algorithm for {}", problem.description);
  std::string tried;
  for (const ConvAlgorithm& algorithm : algorithms) {
    ConvAttempt result = attempt(algorithm);
    if (result.outcome == ConvAttempt::Outcome::Ran) return;
    if (result.outcome == ConvAttempt::Outcome::Failed) drop_conv_algorithm(problem, algorithm);
    tried += fmt::format("\n  algorithm {} (math type {}, workspace {} bytes): {}{}", algorithm.algo, algorithm.math,
                         algorithm.workspace,
                         result.outcome == ConvAttempt::Outcome::OutOfMemory ? "out of memory: " : "", result.status);
  }
  BRISK_FAIL("no cuDNN algorithm could run {}; tried:{}", problem.description, tried);
}

}  // namespace brisk::cuda
