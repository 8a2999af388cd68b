// The error for a saved tensor modified in place: it names the node that saved the tensor, what
// produced it, and both versions.
#include "autograd/saved_tensor.h"

#include "autograd/function.h"
#include "tests/autograd/test_util.h"

namespace brisk::test {
namespace {

using Catch::Contains;

TEST_CASE("the version error names the op that produced the tensor and the node that saved it", "[saved_tensor]") {
  Tensor x = make({3});
  Tensor y = x * 2.0;
  Tensor z = y.sin();
  y.add_(1.0);
  REQUIRE_THROWS_WITH(z.sum().backward(),
                      Contains("modified by an inplace operation: [float64 [3]], which is output 0 of MulBackward, is "
                               "at version 1; expected version 0 instead. It was saved for the backward of "
                               "SinBackward"));
}

TEST_CASE("the version error names a leaf changed in place, as by an optimizer step", "[saved_tensor]") {
  Tensor w = make({3});
  Tensor z = w.sin();
  {
    NoGradGuard no_grad;
    w.add_(1.0);
  }
  REQUIRE_THROWS_WITH(z.sum().backward(), Contains("[float64 [3]], a leaf, is at version 1; expected version 0") &&
                                              Contains("saved for the backward of SinBackward"));
}

TEST_CASE("the version error names an input that does not require grad", "[saved_tensor]") {
  Tensor w = make({3});
  Tensor data = randn({3}, kFloat64);
  Tensor z = w * data;
  data.mul_(2.0);
  REQUIRE_THROWS_WITH(z.sum().backward(), Contains("an input that does not require grad, is at version 1") &&
                                              Contains("saved for the backward of MulBackward"));
}

TEST_CASE("the version error names the custom function that saved the tensor", "[saved_tensor]") {
  struct SavesInput : autograd::Function<SavesInput> {
    static Tensor forward(autograd::AutogradContext* ctx, Tensor x) {
      ctx->save_for_backward({x});
      return x * x;
    }
    static TensorList backward(autograd::AutogradContext* ctx, TensorList grads) {
      return {grads[0] * ctx->get_saved_variables()[0] * 2.0};
    }
  };
  Tensor x = make({2});
  Tensor y = x.exp();
  Tensor z = SavesInput::apply(y);
  y.mul_(3.0);
  REQUIRE_THROWS_WITH(z.sum().backward(), Contains("which is output 0 of ExpBackward") &&
                                              Contains("saved for the backward of brisk::test::") &&
                                              Contains("SavesInput"));
}

}  // namespace
}  // namespace brisk::test
