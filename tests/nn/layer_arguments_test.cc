// Conv1d, ConvTranspose2d, GroupNorm and Upsample beyond the PyTorch fixtures: argument errors
// (naming the function, the shapes and the values), printing, initialization, and small
// cases whose answer is known by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include "autograd/ops.h"
#include "nn/nn.h"

namespace brisk::nn {
namespace {

namespace F = functional;
using Catch::Matchers::Contains;

double max_abs(const Tensor& t) { return t.abs().max().item<double>(); }

TEST_CASE("conv1d errors name conv1d's own shapes") {
  Tensor x = zeros({8, 3, 20});
  CHECK_THROWS_WITH(F::conv1d(zeros({8, 3, 4, 4}), zeros({4, 3, 3})), Contains("conv1d: expected a 2-D (unbatched)"));
  CHECK_THROWS_WITH(F::conv1d(x, zeros({4, 3, 3, 3})), Contains("conv1d: expected a 3-D weight"));
  CHECK_THROWS_WITH(F::conv1d(x, zeros({4, 2, 3})),
                    Contains("conv1d: input [8, 3, 20] should have 2 channels (weight [4, 2, 3] with groups 1)"));
  CHECK_THROWS_WITH(F::conv1d(x, zeros({4, 3, 3}), zeros({3})), Contains("conv1d: bias [3] should have shape [4]"));
  CHECK_THROWS_WITH(F::conv1d(x, zeros({4, 3, 30})), Contains("conv1d: kernel 30 with dilation 1 does not fit"));
  CHECK_THROWS_WITH(F::conv1d(x, zeros({5, 1, 3}), Tensor(), 1, 0, 1, 3),
                    Contains("conv1d: groups 3 must be positive and divide the 5 output channels"));
  CHECK_THROWS_WITH(Conv1d(Conv1dOptions(3, 4, 3).groups(2)), Contains("Conv1d: in_channels 3 and out_channels 4"));
}

TEST_CASE("conv_transpose2d errors name the shapes and the geometry") {
  Tensor x = zeros({2, 4, 5, 5});
  CHECK_THROWS_WITH(F::conv_transpose2d(x, zeros({3, 2, 3, 3})),
                    Contains("conv_transpose2d: input [2, 4, 5, 5] should have 3 channels (the first dim of weight"));
  CHECK_THROWS_WITH(F::conv_transpose2d(x, zeros({4, 2, 3, 3}), zeros({4})),
                    Contains("conv_transpose2d: bias [4] should have shape [2] (the output channels: weight "
                             "[4, 2, 3, 3] with groups 1)"));
  CHECK(F::conv_transpose2d(x, zeros({4, 2, 3, 3}), zeros({4}), 1, 0, 0, 2).sizes() == Shape{2, 4, 7, 7});
  CHECK_THROWS_WITH(F::conv_transpose2d(x, zeros({4, 2, 3, 3}), Tensor(), 2, 0, 2),
                    Contains("output_padding [2, 2] must be non-negative and smaller than either stride [2, 2] or "
                             "dilation [1, 1]"));
  CHECK_THROWS_WITH(F::conv_transpose2d(zeros({1, 1, 1, 1}), zeros({1, 1, 1, 1}), Tensor(), 1, 1),
                    Contains("gives an empty output [-1, -1]"));
  CHECK_THROWS_WITH(F::conv_transpose2d(x, zeros({4, 2, 3, 3}, kFloat64)), Contains("must have the same dtype"));
  CHECK_THROWS_WITH(F::conv_transpose2d(zeros({4, 5}), zeros({4, 2, 3, 3})),
                    Contains("conv_transpose2d: expected a 3-D (unbatched) or 4-D (batched) input"));
  CHECK_THROWS_WITH(F::conv_transpose2d(x, zeros({4, 2, 3, 3}), Tensor(), 1, 0, 0, 3),
                    Contains("groups 3 must be positive and divide the 4 input channels"));
}

TEST_CASE("group_norm and GroupNorm errors name the groups and the channels") {
  CHECK_THROWS_WITH(F::group_norm(zeros({2, 6, 4}), 4),
                    Contains("group_norm: num_groups 4 must be positive and divide the 6 channels of input [2, 6, 4]"));
  CHECK_THROWS_WITH(F::group_norm(zeros({6}), 3), Contains("group_norm: expected an input [N, C, *]"));
  CHECK_THROWS_WITH(F::group_norm(zeros({2, 6, 4}), 3, ones({4})),
                    Contains("group_norm: weight [4] float32 cpu should have shape [6]"));
  CHECK_THROWS_WITH(GroupNorm(4, 6), Contains("GroupNorm: num_channels 6 must be divisible by num_groups 4"));
  CHECK_THROWS_WITH(GroupNorm(2, 6)(zeros({2, 4, 3})), Contains("GroupNorm: expected an input [N, 6, *] (6 channels)"));
}

TEST_CASE("interpolate errors name the argument") {
  Tensor x = zeros({1, 2, 4, 4});
  CHECK_THROWS_WITH(F::interpolate(x, F::InterpolateOptions()), Contains("give exactly one of size and scale_factor"));
  CHECK_THROWS_WITH(F::interpolate(x, F::InterpolateOptions().size({8, 8}).scale_factor({2})),
                    Contains("give exactly one of size and scale_factor"));
  CHECK_THROWS_WITH(F::interpolate(x, F::InterpolateOptions().size({8, 8, 8})),
                    Contains("interpolate: size [8, 8, 8] should have 1 or 2 values (the spatial dims of input"));
  CHECK_THROWS_WITH(F::interpolate(x, F::InterpolateOptions().scale_factor({0.1})),
                    Contains("the output size of input [1, 2, 4, 4] would be 0 in spatial dim 0"));
  CHECK_THROWS_WITH(F::interpolate(x, F::InterpolateOptions().scale_factor({-2})),
                    Contains("scale_factor [-2] must be positive"));
  CHECK_THROWS_WITH(F::interpolate(x, F::InterpolateOptions().size({8}).mode("bicubic")),
                    Contains("mode \"bicubic\" is not supported (supported: \"nearest\", \"bilinear\")"));
  CHECK_THROWS_WITH(F::interpolate(x, F::InterpolateOptions().size({8}).align_corners(true)),
                    Contains("align_corners can only be set with mode \"bilinear\""));
  CHECK_THROWS_WITH(F::interpolate(zeros({1, 2, 4}), F::InterpolateOptions().size({8}).mode("bilinear")),
                    Contains("mode \"bilinear\" expects a 4-D floating point input [N, C, H, W], got [1, 2, 4]"));
  CHECK_THROWS_WITH(F::interpolate(zeros({2, 4}), F::InterpolateOptions().size({8})),
                    Contains("mode \"nearest\" expects a 3-D, 4-D or 5-D input"));
  CHECK_THROWS_WITH(F::interpolate(zeros({1, 2, 0, 4}), F::InterpolateOptions().size({8})),
                    Contains("interpolate: input [1, 2, 0, 4] is empty in spatial dim 0"));
  CHECK_THROWS_WITH(Upsample(UpsampleOptions()), Contains("Upsample: give exactly one of size and scale_factor"));
}

TEST_CASE("interpolate by hand: nearest repeats, bilinear with align_corners hits the corners") {
  Tensor x = tensor<float>({1, 2, 3, 4}, {1, 1, 2, 2});
  CHECK(equal(F::interpolate(x, F::InterpolateOptions().scale_factor({2})),
              tensor<float>({1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}, {1, 1, 4, 4})));
  CHECK(equal(F::interpolate(x, F::InterpolateOptions().size({3, 3}).mode("bilinear").align_corners(true)),
              tensor<float>({1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}, {1, 1, 3, 3})));
  // Without align_corners the outer outputs clamp to the edge pixels.
  CHECK(equal(F::interpolate(x, F::InterpolateOptions().scale_factor({2}).mode("bilinear")).select(2, 0),
              tensor<float>({1, 1.25, 1.75, 2}, {1, 1, 4})));
  // An integer tensor resized by nearest keeps its dtype.
  CHECK(F::interpolate(zeros({1, 1, 3}, kInt64), F::InterpolateOptions().size({5})).dtype() == kInt64);
}

TEST_CASE("GroupNorm normalizes each group of each sample; ConvTranspose2d inverts a strided Conv2d's geometry") {
  manual_seed(5);
  GroupNorm norm(GroupNormOptions(2, 4).affine(false));
  Tensor y = norm(randn({3, 4, 5}) * 3 + 1).view({3, 2, 10});
  CHECK(max_abs(y.mean({2})) < 1e-5);
  CHECK(max_abs(y.var({2}, 0) - 1) < 1e-3);
  Conv2d down(Conv2dOptions(3, 8, 3).stride(2).padding(1));
  ConvTranspose2d up(ConvTranspose2dOptions(8, 3, 3).stride(2).padding(1).output_padding(1));
  Tensor x = randn({2, 3, 16, 12});
  CHECK(up(down(x)).sizes() == x.sizes());
  // A stride that does not divide the input: output_size picks the output_padding.
  ConvTranspose2d undo(ConvTranspose2dOptions(8, 3, 3).stride(2).padding(1));
  Tensor odd = randn({2, 3, 15, 12});
  CHECK(undo(down(odd)).sizes() == Shape{2, 3, 15, 11});
  CHECK(undo->forward(down(odd), odd.sizes()).sizes() == odd.sizes());
  CHECK(equal(undo->forward(down(odd), {16, 12}), F::conv_transpose2d(down(odd), undo->weight, undo->bias, 2, 1, 1)));
  CHECK_THROWS_WITH(undo->forward(down(odd), {17, 15}),
                    Contains("ConvTranspose2d: output_size [17, 15] cannot be reached from input [2, 8, 8, 6]: "
                             "spatial dim 0 can be 15 to 16"));
}

TEST_CASE("ConvTranspose2d and Conv1d start from PyTorch's initialization bounds") {
  manual_seed(6);
  ConvTranspose2d up(ConvTranspose2dOptions(16, 6, 5).groups(2));
  CHECK(up->weight.sizes() == Shape{16, 3, 5, 5});
  double bound = 1.0 / std::sqrt(3.0 * 25);  // fan_in: out_channels / groups * kernel
  CHECK(max_abs(up->weight) <= bound);
  CHECK(max_abs(up->weight) > 0.98 * bound);
  CHECK(max_abs(up->bias) <= bound);
  Conv1d conv(Conv1dOptions(8, 4, 3));
  CHECK(conv->weight.sizes() == Shape{4, 8, 3});
  CHECK(max_abs(conv->weight) <= 1.0 / std::sqrt(24.0));
  GroupNorm norm(2, 4);
  CHECK(equal(norm->weight, ones({4})));
  CHECK(equal(norm->bias, zeros({4})));
}

TEST_CASE("the new layers print like PyTorch and name their parameters as PyTorch") {
  Sequential seq(Conv1d(Conv1dOptions(2, 4, 3).padding(1)), GroupNorm(2, 4),
                 ConvTranspose2d(ConvTranspose2dOptions(4, 2, 4).stride(2).padding(1).bias(false)),
                 Upsample(UpsampleOptions().scale_factor({2}).mode("bilinear").align_corners(false)));
  std::ostringstream text;
  text << *seq;
  CHECK(text.str() == "Sequential(\n"
                      "  (0): Conv1d(2, 4, kernel_size=3, stride=1, padding=1)\n"
                      "  (1): GroupNorm(2, 4, eps=1e-05, affine=true)\n"
                      "  (2): ConvTranspose2d(4, 2, kernel_size=[4, 4], stride=[2, 2], padding=[1, 1], bias=false)\n"
                      "  (3): Upsample(scale_factor=[2], mode=bilinear, align_corners=false)\n"
                      ")");
  std::vector<std::string> names;
  for (const auto& [name, value] : seq->state_dict()) names.push_back(name);
  CHECK(names == std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias", "2.weight"});
}

}  // namespace
}  // namespace brisk::nn
