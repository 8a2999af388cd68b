// The cuDNN algorithm cache's keys and its record of what it chose (cuda/conv_algorithm_cache.h),
// on the CPU: problems are keyed by layout, and conv_algorithm_choices() reports the algorithm,
// math type and workspace each problem runs with, in cuDNN's names.
#include "cuda/conv_algorithm_cache.h"

#include <catch2/catch.hpp>

#include "tensor/native/ops.h"

using namespace brisk;
using namespace brisk::cuda;
using Catch::Matchers::Contains;

namespace {

TensorOptions bf16(MemoryFormat format) { return TensorOptions(kBFloat16).memory_format(format); }

ConvProblem problem(MemoryFormat format) {
  return conv_problem(ConvPass::Forward, native::empty({8, 16, 32, 32}, bf16(format)),
                      native::empty({32, 16, 3, 3}, bf16(format)), native::empty({8, 32, 32, 32}, bf16(format)),
                      Conv2dParams{}, false);
}

}  // namespace

TEST_CASE("conv algorithm cache: the layout is part of a problem and of its description") {
  ConvProblem nchw = problem(MemoryFormat::Contiguous), nhwc = problem(MemoryFormat::ChannelsLast);
  CHECK_FALSE(nchw == nhwc);
  CHECK_THAT(nhwc.description, Contains("bfloat16") && Contains("channels_last"));
  CHECK_THAT(nchw.description, Contains("contiguous"));
}

TEST_CASE("conv algorithm cache: conv_algorithm_choices reports each problem's first working algorithm") {
  clear_conv_algorithm_cache();
  const ConvAlgorithm tensor_op{1, 1, 4096}, fma{0, 3, 0};
  conv_algorithms(problem(MemoryFormat::ChannelsLast), [&] { return std::vector<ConvAlgorithm>{tensor_op, fma}; });
  conv_algorithms(problem(MemoryFormat::Contiguous), [&] { return std::vector<ConvAlgorithm>{fma}; });
  std::vector<ConvAlgorithmChoice> choices = conv_algorithm_choices();
  REQUIRE(choices.size() == 2);
  for (const ConvAlgorithmChoice& c : choices) {
    CHECK(c.pass == ConvPass::Forward);
    CHECK(c.dtype == kBFloat16);
    CHECK(c.algorithm == (c.channels_last ? tensor_op : fma));
    CHECK(is_tensor_op_math(c.algorithm.math) == c.channels_last);
  }
  const ConvAlgorithmChoice& nhwc = choices[0].channels_last ? choices[0] : choices[1];
  CHECK_THAT(describe(nhwc), Contains("forward pass of input [8, 16, 32, 32] bfloat16") &&
                                 Contains("IMPLICIT_PRECOMP_GEMM, TENSOR_OP_MATH, workspace 4096 bytes"));
  // A failed algorithm is dropped: the record then names the next one.
  drop_conv_algorithm(problem(MemoryFormat::ChannelsLast), tensor_op);
  for (const ConvAlgorithmChoice& c : conv_algorithm_choices()) CHECK(c.algorithm == fma);
  clear_conv_algorithm_cache();
  CHECK(conv_algorithm_choices().empty());
}

TEST_CASE("conv algorithm cache: cuDNN's names, and numbers for values it lacks") {
  CHECK(conv_algorithm_name(ConvPass::Forward, 6) == "WINOGRAD");
  CHECK(conv_algorithm_name(ConvPass::BackwardData, 1) == "ALGO_1");
  CHECK(conv_algorithm_name(ConvPass::BackwardFilter, 6) == "FFT_TILING");
  CHECK(conv_algorithm_name(ConvPass::Forward, 42) == "ALGO_42");
  CHECK(conv_math_name(2) == "TENSOR_OP_MATH_ALLOW_CONVERSION");
  CHECK(conv_math_name(3) == "FMA_MATH");
  CHECK(conv_math_name(9) == "MATH_9");
  CHECK(is_tensor_op_math(2));
  CHECK_FALSE(is_tensor_op_math(0));
}
