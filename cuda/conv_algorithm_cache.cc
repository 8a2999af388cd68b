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

// The fields of ConvProblem::fields that conv_algorithm_choices() reads back.
constexpr size_t kPassField = 0, kDtypeField = 2, kChannelsLastField = 4;

// Never destroyed: convolutions may run during static destruction.
Cache& cache() {
  static auto* c = new Cache();
  return *c;
}

void append_geometry(std::vector<int64_t>& fields, const Tensor& t) {
  fields.insert(fields.end(), t.sizes().begin(), t.sizes().end());
  fields.insert(fields.end(), t.strides().begin(), t.strides().end());
}

const char* layout_name(const Tensor& t) {
  return t.suggest_memory_format() == MemoryFormat::ChannelsLast ? "channels_last" : "contiguous";
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
  const bool channels_last = !(input.is_contiguous() && weight.is_contiguous() && output.is_contiguous());
  p.fields = {static_cast<int64_t>(pass), input.device().index, static_cast<int64_t>(input.dtype()), tf32,
              channels_last};
  append_geometry(p.fields, input);
  append_geometry(p.fields, weight);
  append_geometry(p.fields, output);
  p.fields.insert(p.fields.end(), {params.stride[0], params.stride[1], params.padding[0], params.padding[1],
                                   params.dilation[0], params.dilation[1], params.groups});
  p.description = fmt::format("the {} pass of input {} {}, weight {} {}, output {} {} (stride {}, padding {}, "
                              "dilation {}, groups {}, TF32 {})",
                              pass_name(pass), input.describe(), layout_name(input), weight.describe(),
                              layout_name(weight), output.describe(), layout_name(output), params.stride,
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

std::vector<ConvAlgorithmChoice> conv_algorithm_choices() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  std::vector<ConvAlgorithmChoice> out;
  for (const auto& [problem, algorithms] : c.algorithms) {
    if (algorithms.empty()) continue;  // no algorithm ran it: nothing was chosen
    out.push_back({static_cast<ConvPass>(problem.fields[kPassField]), problem.description,
                   static_cast<DType>(problem.fields[kDtypeField]), problem.fields[kChannelsLastField] != 0,
                   algorithms.front()});
  }
  return out;
}

std::string conv_algorithm_name(ConvPass pass, int algo) {
  static const std::vector<const char*> forward{
      "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
  static const std::vector<const char*> data{"ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
  static const std::vector<const char*> filter{"ALGO_0",    "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED",
                                               "FFT_TILING"};
  const std::vector<const char*>& names = pass == ConvPass::Forward        ? forward
                                          : pass == ConvPass::BackwardData ? data
                                                                           : filter;
  if (algo >= 0 && algo < static_cast<int>(names.size())) return names[algo];
  return fmt::format("ALGO_{}", algo);
}

std::string conv_math_name(int math) {
  static const char* names[] = {"DEFAULT_MATH", "TENSOR_OP_MATH", "TENSOR_OP_MATH_ALLOW_CONVERSION", "FMA_MATH"};
  if (math >= 0 && math < 4) return names[math];
  return fmt::format("MATH_{}", math);
}

bool is_tensor_op_math(int math) { return math == 1 || math == 2; }

std::string describe(const ConvAlgorithmChoice& choice) {
  std::string problem = choice.problem.rfind("the ", 0) == 0 ? choice.problem.substr(4) : choice.problem;
  return fmt::format("{}: {}, {}, workspace {} bytes", problem, conv_algorithm_name(choice.pass, choice.algorithm.algo),
                     conv_math_name(choice.algorithm.math), choice.algorithm.workspace);
}

void clear_conv_algorithm_cache() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.algorithms.clear();
  c.stats = {};
}

}  // namespace brisk::cuda
