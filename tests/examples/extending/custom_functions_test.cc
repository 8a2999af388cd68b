#include <catch2/catch.hpp>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "examples/extending/custom_functions.h"

namespace brisk::examples {
namespace {

TEST_CASE("swish with a hand-written backward matches its composite form and passes gradcheck") {
  Generator gen(2);
  Tensor x = randn({4, 5}, kFloat64, &gen).requires_grad_();
  Tensor y = swish(x);
  CHECK(allclose(y, x * sigmoid(x)));
  CHECK(y.grad_fn()->name() == "brisk::examples::SwishFunction");
  CHECK(autograd::gradcheck([](const std::vector<Tensor>& in) { return swish(in[0]); }, {x}));
}

TEST_CASE("gradient reversal is the identity forward and scales the gradient by -lambda") {
  Tensor x = randn({3}, kFloat64).requires_grad_();
  Tensor y = reverse_gradient(x, 0.5);
  CHECK(equal(y, x));
  (y * 2).sum().backward();
  CHECK(equal(x.grad(), full({3}, -1.0, kFloat64)));
}

}  // namespace
}  // namespace brisk::examples
