// Transforms against values computed by hand (ToTensor and Normalize also match PyTorch's
// float32 arithmetic exactly), and the reproducibility of the random ones.
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "data/random.h"
#include "data/transforms/compose.h"
#include "data/transforms/normalize.h"
#include "data/transforms/random_crop.h"
#include "data/transforms/random_horizontal_flip.h"
#include "data/transforms/to_tensor.h"

using namespace brisk;
using namespace brisk::data;
using Catch::Matchers::Contains;

namespace {
// uint8 [2, 3, 2] (HWC) holding 0, 20, 40, ..., 220.
Tensor hwc_image() { return (arange(12, kInt64) * 20).to(kUInt8).view({2, 3, 2}); }
}  // namespace

TEST_CASE("ToTensor turns uint8 HWC into float CHW in [0, 1]", "[data][transforms]") {
  Tensor t = ToTensor()(hwc_image());
  CHECK(t.dtype() == kFloat32);
  CHECK(t.sizes() == Shape{2, 2, 3});
  // torch: x.permute(2, 0, 1).float().div(255)
  CHECK(t.to_vector<float>() == std::vector<float>{0.0f, 0.1568627506494522f, 0.3137255012989044f, 0.47058823704719543f,
                                                   0.6274510025978088f, 0.7843137383460999f, 0.0784313753247261f,
                                                   0.23529411852359772f, 0.3921568691730499f, 0.5490196347236633f,
                                                   0.7058823704719543f, 0.8627451062202454f});

  Tensor gray = ToTensor()(tensor<int64_t>({0, 255, 51, 102}, {2, 2}).to(kUInt8));
  CHECK(gray.sizes() == Shape{1, 2, 2});
  CHECK(gray.to_vector<float>() == std::vector<float>{0.0f, 1.0f, 0.2f, 0.4f});

  // Not uint8: only rearranged, dtype and values kept.
  Tensor doubles = ToTensor()(tensor({1, 2, 3, 4, 5, 6}, {1, 3, 2}, kFloat64));
  CHECK(doubles.dtype() == kFloat64);
  CHECK(doubles.sizes() == Shape{2, 1, 3});
  CHECK(doubles.to_vector<double>() == std::vector<double>{1, 3, 5, 2, 4, 6});

  CHECK_THROWS_WITH(ToTensor()(zeros({2})), Contains("ToTensor") && Contains("[H, W] or [H, W, C]") && Contains("[2]"));
}

TEST_CASE("Normalize standardizes each channel", "[data][transforms]") {
  Tensor chw = ToTensor()(hwc_image());
  Tensor n = Normalize({0.5, 0.25}, {0.5, 0.125})(chw);
  CHECK(n.sizes() == Shape{2, 2, 3});
  // torch: (t - mean.view(2, 1, 1)) / std.view(2, 1, 1) in float32
  CHECK(n.to_vector<float>() == std::vector<float>{-1.0f, -0.686274528503418f, -0.37254899740219116f,
                                                   -0.05882352590560913f, 0.2549020051956177f, 0.5686274766921997f,
                                                   -1.372549057006836f, -0.11764705181121826f, 1.1372549533843994f,
                                                   2.3921570777893066f, 3.6470589637756348f, 4.901960849761963f});

  // One value for all channels; a batch [N, C, H, W]; float64 by the same loop.
  Tensor batch = tensor({1, 3, 5, 7}, {2, 2, 1, 1}, kFloat64);
  CHECK(Normalize({1}, {2})(batch).to_vector<double>() == std::vector<double>{0, 1, 2, 3});
  // Other dtypes go through tensor ops.
  Tensor half = Normalize({1}, {2})(batch.to(kBFloat16));
  CHECK(half.dtype() == kBFloat16);
  CHECK(half.to(kFloat64).to_vector<double>() == std::vector<double>{0, 1, 2, 3});

  CHECK_THROWS_WITH(Normalize({0.5}, {0.0}), Contains("Normalize") && Contains("zero"));
  CHECK_THROWS_WITH(Normalize({0.1, 0.2, 0.3}, {1.0})(chw), Contains("3 means") && Contains("2 channels"));
  CHECK_THROWS_WITH(Normalize({0.1}, {1.0})(hwc_image()), Contains("floating-point") && Contains("uint8"));
}

TEST_CASE("RandomCrop pads with zeros and crops where the generator says", "[data][transforms]") {
  Tensor image = arange(1, 10, 1, kFloat32).view({1, 3, 3});  // 1..9
  Generator gen(123);
  RandomCrop crop({2, 3}, 1, &gen);
  // Padded to 5x5 there are 4x3 places for a 2x3 crop.
  for (int i = 0; i < 20; ++i) {
    Generator::State before = gen.get_state();
    Tensor out = crop(image);
    REQUIRE(out.sizes() == Shape{1, 2, 3});
    // The crop is the 2x2 window of the padded image at (top, left) drawn from the same counters.
    Generator replay(before.seed);
    replay.set_state(before);
    int64_t top = uniform_int(replay, 4), left = uniform_int(replay, 3);
    std::vector<float> expected;
    for (int64_t r = top; r < top + 2; ++r) {
      for (int64_t c = left; c < left + 3; ++c) {
        bool inside = r >= 1 && r <= 3 && c >= 1 && c <= 3;
        expected.push_back(inside ? static_cast<float>((r - 1) * 3 + c) : 0.0f);
      }
    }
    CHECK(out.to_vector<float>() == expected);
  }

  // Without padding, a full-size crop is the image.
  CHECK(equal(RandomCrop(3, 0, &gen)(image), image));
  CHECK_THROWS_WITH(RandomCrop(4, 0, &gen)(image), Contains("crop size [4, 4] is larger") && Contains("[1, 3, 3]"));
}

TEST_CASE("Random transforms are reproducible from the seed", "[data][transforms]") {
  Tensor image = arange(0, 64, 1, kFloat32).view({1, 8, 8});
  auto run = [&](uint64_t seed) {
    Generator gen(seed);
    Compose augment({RandomCrop(6, 2, &gen), RandomHorizontalFlip(0.5, &gen)});
    std::vector<Tensor> outs;
    for (int i = 0; i < 10; ++i) outs.push_back(augment(image));
    return cat(outs, 0);
  };
  CHECK(equal(run(7), run(7)));
  CHECK_FALSE(equal(run(7), run(8)));

  // Without a generator they draw from the sample generator of the current scope.
  auto scoped = [&](uint64_t seed) {
    Generator gen(seed);
    SampleGeneratorScope scope(gen);
    return RandomCrop(5, 1)(image);
  };
  CHECK(equal(scoped(3), scoped(3)));
}

TEST_CASE("RandomHorizontalFlip mirrors the last dim with probability p", "[data][transforms]") {
  Tensor image = tensor<float>({1, 2, 3, 4, 5, 6}, {1, 2, 3});
  Generator gen(0);
  CHECK(RandomHorizontalFlip(1.0, &gen)(image).to_vector<float>() == std::vector<float>{3, 2, 1, 6, 5, 4});
  CHECK(RandomHorizontalFlip(0.0, &gen)(image).is_same(image));
  // About half of many draws flip.
  RandomHorizontalFlip flip(0.5, &gen);
  int flipped = 0;
  for (int i = 0; i < 1000; ++i) flipped += flip(image).is_same(image) ? 0 : 1;
  CHECK(flipped > 430);
  CHECK(flipped < 570);
  CHECK_THROWS_WITH(RandomHorizontalFlip(1.5), Contains("[0, 1]") && Contains("1.5"));
}

TEST_CASE("Compose applies transforms in order", "[data][transforms]") {
  Compose pipeline({ToTensor(), Normalize({0.5}, {0.5}), [](const Tensor& x) { return x * 2; }});
  Tensor out = pipeline(tensor<int64_t>({0, 255}, {1, 2}).to(kUInt8));
  CHECK(out.to_vector<float>() == std::vector<float>{-2.0f, 2.0f});
  CHECK_THROWS_WITH(Compose({ToTensor(), nullptr}), Contains("transform 1 is empty"));
}
