// The main job until the MNIST trainer exists: fits a two-layer perceptron to y = sin(3x)
// with Brisk's autograd and plain gradient descent, printing the loss as it falls.
#include <cstdio>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"

using namespace brisk;

int main() {
  manual_seed(0);
  const int64_t n = 256, hidden = 32;
  Tensor x = rand({n, 1}).mul(4.0).sub(2.0);  // (N, 1) in [-2, 2)
  Tensor y = sin(x.mul(3.0));                 // (N, 1)

  auto param = [](Shape shape, double scale) { return randn(shape).mul(scale).requires_grad_(); };
  Tensor w1 = param({1, hidden}, 1.0), b1 = param({hidden}, 0.1);
  Tensor w2 = param({hidden, 1}, 0.2), b2 = param({1}, 0.1);

  const double lr = 0.05;
  for (int step = 0; step <= 2000; ++step) {
    Tensor h = tanh(addmm(b1, x, w1));                  // (N, H)
    Tensor loss = (addmm(b2, h, w2) - y).square().mean();  // scalar
    for (Tensor* p : {&w1, &b1, &w2, &b2}) p->set_grad(Tensor());
    loss.backward();
    {
      autograd::NoGradGuard no_grad;
      for (Tensor* p : {&w1, &b1, &w2, &b2}) p->sub_(p->grad(), lr);
    }
    if (step % 200 == 0) std::printf("step %4d  mse %.5f\n", step, loss.item<float>());
  }
  return 0;
}
