// gradcheck of the ops optimizers update with: lerp, and the in-place lerp_, addcmul_ and
// addcdiv_ (on a clone of a leaf, so that the gradient flows back to it).
#include "tests/autograd/test_util.h"

namespace brisk::test {
namespace {

TEST_CASE("gradcheck lerp, same and broadcast shapes", "[gradcheck][elementwise]") {
  for (double weight : {0.3, 0.8}) {
    INFO("weight " << weight);
    auto fn = [weight](const TensorList& in) { return lerp(in[0], in[1], weight); };
    REQUIRE(gradcheck(fn, {make({3, 4}), make({3, 4}, Values::Normal, Layout::Transposed)}));
    REQUIRE(gradcheck(fn, {make({3, 4}), make({4})}));
  }
}

TEST_CASE("gradcheck lerp_", "[gradcheck][inplace]") {
  for (double weight : {0.2, 0.9}) {
    INFO("weight " << weight);
    REQUIRE(gradcheck(
        [weight](const TensorList& in) {
          Tensor self = in[0].clone();
          self.lerp_(in[1], weight);
          return self;
        },
        {make({3, 4}), make({4})}));
  }
}

TEST_CASE("gradcheck addcmul_ and addcdiv_", "[gradcheck][inplace]") {
  REQUIRE(gradcheck(
      [](const TensorList& in) {
        Tensor self = in[0].clone();
        self.addcmul_(in[1], in[2], -0.5);
        return self;
      },
      {make({3, 4}), make({3, 4}, Values::Normal, Layout::Strided), make({4})}));
  REQUIRE(gradcheck(
      [](const TensorList& in) {
        Tensor self = in[0].clone();
        self.addcdiv_(in[1], in[2], 2.0);
        return self;
      },
      {make({3, 4}), make({3, 1}), make({3, 4}, Values::NonZero)}));
}

TEST_CASE("in-place update ops are refused on a leaf that requires grad", "[inplace]") {
  Tensor w = make({3});
  Tensor other = make({3});
  REQUIRE_THROWS_WITH(w.lerp_(other, 0.5), Catch::Contains("lerp_: a leaf Variable that requires grad"));
  REQUIRE_THROWS_WITH(w.addcmul_(other, other), Catch::Contains("addcmul_: a leaf Variable that requires grad"));
  REQUIRE_THROWS_WITH(w.addcdiv_(other, other), Catch::Contains("addcdiv_: a leaf Variable that requires grad"));
  NoGradGuard no_grad;
  uint32_t version = w.version();
  w.addcmul_(other, other, 2.0).addcdiv_(other, other).lerp_(other, 1.0);
  REQUIRE(w.version() == version + 3);
  REQUIRE(equal(w, other));
}

}  // namespace
}  // namespace brisk::test
