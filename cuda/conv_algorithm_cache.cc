#include "cuda/conv_algorithm_cache.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace brisk::cuda {
namespace {

struct ProblemHash {
  size_t operator()(const ConvProblem& p) const {
    size_t h = 0;
    for (int64_t v : p.fields) h = h * 1000003u ^ std::hash<int64_t>()(v);
    return h;
  }
};

struct Cache {
  std::mutex mutex;
  std::unordered_map<ConvProblem, std::vector<ConvAlgorithm>, ProblemHash> algorithms;
  ConvAlgorithmCacheStats stats;
};

// Never destroyed: convolutions may run during static destruction.
Cache& cache() {
  static auto* c = new Cache();
  return *c;
}

void append_geometry(std::vector<int64_t>& fields, const Tensor& t) {
  fields.insert(fields.end(), t.sizes().begin(), t.sizes().end());
  fields.insert(fields.end(), t.strides().begin(), t.strides().end());
}

const char* pass_name(ConvPass pass) {
  switch (pass) {
    case ConvPass::Forward: return "forward";
    case ConvPass::BackwardData: return "backward data";
    case ConvPass::BackwardFilter: return "backward filter";
  }
  return "unknown";
}

}  // namespace

ConvProblem conv_problem(ConvPass pass, const Tensor& input, const Tensor& weight, const Tensor& output,
                         const Conv2dParams& params, bool tf32) {
  ConvProblem p;
  p.fields = {static_cast<int64_t>(pass), input.device().index, static_cast<int64_t>(input.dtype()), tf32};
  append_geometry(p.fields, input);
  append_geometry(p.fields, weight);
  append_geometry(p.fields, output);
  p.fields.insert(p.fields.end(), {params.stride[0], params.stride[1], params.padding[0], params.padding[1],
                                   params.dilation[0], params.dilation[1], params.groups});
  p.description = fmt::format("the {} pass of input {}, weight {}, output {} (stride {}, padding {}, dilation {}, "
                              "groups {}, TF32 {})",
                              pass_name(pass), input.describe(), weight.describe(), output.describe(), params.stride,
                              params.padding, params.dilation, params.groups, tf32 ? "allowed" : "off");
  return p;
}

std::vector<ConvAlgorithm> conv_algorithms(const ConvProblem& problem,
                                           const std::function<std::vector<ConvAlgorithm>()>& search) {
  Cache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.algorithms.find(problem);
    if (it != c.algorithms.end()) {
      ++c.stats.hits;
      return it->second;
    }
    ++c.stats.misses;
  }
  // Two threads meeting a new problem at once both search; the results are the same.
  std::vector<ConvAlgorithm> found = search();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.algorithms.emplace(problem, found);
  return found;
}

void drop_conv_algorithm(const ConvProblem& problem, const ConvAlgorithm& algorithm) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.algorithms.find(problem);
  if (it == c.algorithms.end()) return;  // another thread dropped the last one first
  std::vector<ConvAlgorithm>& cached = it->second;
  cached.erase(std::remove(cached.begin(), cached.end(), algorithm), cached.end());
  if (cached.empty()) c.algorithms.erase(it);
}

ConvAlgorithmCacheStats conv_algorithm_cache_stats() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  ConvAlgorithmCacheStats stats = c.stats;
  stats.entries = static_cast<int64_t>(c.algorithms.size());
  return stats;
}

void clear_conv_algorithm_cache() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.algorithms.clear();
  c.stats = {};
}

}  // namespace brisk::cuda
