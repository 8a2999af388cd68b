// The fallback from a cuDNN algorithm that fails to the next (cuda/conv_fallback.h) and its
// updates of the algorithm cache, on the CPU with a scripted attempt in place of cuDNN.
#include "cuda/conv_fallback.h"

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "tensor/native/ops.h"

using namespace brisk;
using namespace brisk::cuda;
using Catch::Matchers::Contains;

namespace {

const ConvAlgorithm kFirst{1, 0, 4096};
const ConvAlgorithm kSecond{6, 1, 0};
const ConvAlgorithm kThird{0, 0, 1 << 20};

// A float16 problem's cache key and description (CPU tensors: only their shapes, strides and
// dtype make the key).
ConvProblem problem(ConvPass pass = ConvPass::Forward) {
  TensorOptions half(kFloat16);
  Conv2dParams params;
  params.groups = 2;
  return conv_problem(pass, native::empty({2, 4, 16, 16}, half), native::empty({6, 2, 3, 3}, half),
                      native::empty({2, 6, 14, 14}, half), params, false);
}

// cuDNN's ranking of every problem here, counting how often it is asked.
struct Search {
  int calls = 0;
  std::vector<ConvAlgorithm> operator()() {
    ++calls;
    return {kFirst, kSecond, kThird};
  }
};

// Stands in for the cuDNN call: each algorithm ends as scripted (runs when not scripted), and
// the order of the tries is recorded.
struct ScriptedAttempt {
  std::map<int, ConvAttempt> script;
  std::vector<int> tried;
  ConvAttempt operator()(const ConvAlgorithm& a) {
    tried.push_back(a.algo);
    auto it = script.find(a.algo);
    return it == script.end() ? ConvAttempt::ran() : it->second;
  }
};

void run(const ConvProblem& p, Search& search, ScriptedAttempt& attempt) {
  run_with_fallback(
      p, [&] { return search(); }, [&](const ConvAlgorithm& a) { return attempt(a); });
}

// The cached algorithms of `p`, which must be cached (a search fails the test).
std::vector<ConvAlgorithm> cached(const ConvProblem& p) {
  return conv_algorithms(p, []() -> std::vector<ConvAlgorithm> {
    FAIL("the problem was not cached");
    return {};
  });
}

std::vector<int> algos(const std::vector<ConvAlgorithm>& as) {
  std::vector<int> out;
  for (const ConvAlgorithm& a : as) out.push_back(a.algo);
  return out;
}

}  // namespace

TEST_CASE("the first algorithm runs when it works, and the cache keeps every candidate") {
  clear_conv_algorithm_cache();
  Search search;
  ScriptedAttempt attempt;
  run(problem(), search, attempt);
  CHECK(attempt.tried == std::vector<int>{kFirst.algo});
  CHECK(search.calls == 1);
  CHECK(algos(cached(problem())) == std::vector<int>{kFirst.algo, kSecond.algo, kThird.algo});
}

TEST_CASE("an algorithm cuDNN fails to run gives way to the next and leaves the cache") {
  clear_conv_algorithm_cache();
  Search search;
  ScriptedAttempt works;
  run(problem(ConvPass::BackwardData), search, works);  // another problem, cached first

  ScriptedAttempt attempt;
  attempt.script[kFirst.algo] = ConvAttempt::failed("CUDNN_STATUS_NOT_SUPPORTED");
  run(problem(), search, attempt);
  CHECK(attempt.tried == std::vector<int>{kFirst.algo, kSecond.algo});
  CHECK(algos(cached(problem())) == std::vector<int>{kSecond.algo, kThird.algo});

  // The next call starts with the second and searches no more.
  attempt.tried.clear();
  run(problem(), search, attempt);
  CHECK(attempt.tried == std::vector<int>{kSecond.algo});
  CHECK(search.calls == 2);
  // Other problems, such as another pass of the same tensors, keep theirs.
  CHECK(algos(cached(problem(ConvPass::BackwardData))) == std::vector<int>{kFirst.algo, kSecond.algo, kThird.algo});
}

TEST_CASE("an algorithm whose workspace cannot be allocated gives way to the next but stays cached") {
  clear_conv_algorithm_cache();
  Search search;
  ScriptedAttempt attempt;
  attempt.script[kFirst.algo] = ConvAttempt::out_of_memory("CUDA out of memory: 4096 bytes requested");
  run(problem(), search, attempt);
  CHECK(attempt.tried == std::vector<int>{kFirst.algo, kSecond.algo});
  CHECK(algos(cached(problem())) == std::vector<int>{kFirst.algo, kSecond.algo, kThird.algo});

  // Once memory is free again the first runs.
  attempt.script.clear();
  attempt.tried.clear();
  run(problem(), search, attempt);
  CHECK(attempt.tried == std::vector<int>{kFirst.algo});
}

TEST_CASE("when no algorithm runs the error names the problem and how each one ended") {
  clear_conv_algorithm_cache();
  Search search;
  ScriptedAttempt attempt;
  attempt.script[kFirst.algo] = ConvAttempt::failed("CUDNN_STATUS_NOT_SUPPORTED");
  attempt.script[kSecond.algo] = ConvAttempt::out_of_memory("CUDA out of memory: 8 MiB requested");
  attempt.script[kThird.algo] =
      ConvAttempt::failed("CUDNN_STATUS_EXECUTION_FAILED (CUDA error left by the call: cudaErrorLaunchFailure)");
  try {
    run(problem(), search, attempt);
    FAIL("expected brisk::Error");
  } catch (const Error& e) {
    std::string message = e.what();
    INFO(message);
    CHECK_THAT(message, Contains("the forward pass of input [2, 4, 16, 16] float16 cpu"));
    CHECK_THAT(message, Contains("weight [6, 2, 3, 3] float16"));
    CHECK_THAT(message, Contains("output [2, 6, 14, 14] float16"));
    CHECK_THAT(message, Contains("groups 2"));
    CHECK_THAT(message, Contains("algorithm 1 (math type 0, workspace 4096 bytes): CUDNN_STATUS_NOT_SUPPORTED"));
    CHECK_THAT(message, Contains("algorithm 6 (math type 1, workspace 0 bytes): out of memory: CUDA out of memory"));
    CHECK_THAT(message, Contains("algorithm 0 (math type 0, workspace 1048576 bytes): CUDNN_STATUS_EXECUTION_FAILED "
                                 "(CUDA error left by the call: cudaErrorLaunchFailure)"));
  }
  CHECK(attempt.tried == std::vector<int>{kFirst.algo, kSecond.algo, kThird.algo});
  // The failed ones are gone; the one that lacked memory stays.
  CHECK(algos(cached(problem())) == std::vector<int>{kSecond.algo});
}

TEST_CASE("a problem whose every cached algorithm failed is searched again") {
  clear_conv_algorithm_cache();
  Search search;
  ScriptedAttempt attempt;
  for (const ConvAlgorithm& a : {kFirst, kSecond, kThird}) attempt.script[a.algo] = ConvAttempt::failed("failed");
  CHECK_THROWS_AS(run(problem(), search, attempt), Error);
  CHECK(conv_algorithm_cache_stats().entries == 0);

  attempt.script.clear();
  attempt.tried.clear();
  run(problem(), search, attempt);
  CHECK(search.calls == 2);
  CHECK(attempt.tried == std::vector<int>{kFirst.algo});
}

TEST_CASE("a problem cuDNN offers no algorithm for is an error naming it") {
  clear_conv_algorithm_cache();
  ScriptedAttempt attempt;
  CHECK_THROWS_WITH(run_with_fallback(
                        problem(ConvPass::BackwardFilter), [] { return std::vector<ConvAlgorithm>{}; },
                        [&](const ConvAlgorithm& a) { return attempt(a); }),
                    Contains("cuDNN offers no algorithm for the backward filter pass of input [2, 4, 16, 16] float16"));
  CHECK(attempt.tried.empty());
}
