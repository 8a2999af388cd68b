#pragma once
// Checks analytical gradients against finite differences, as torch.autograd.gradcheck.
//
//   auto x = randn({3, 4}, TensorOptions(kFloat64).requires_grad(true));
//   REQUIRE(gradcheck([](const TensorList& in) { return in[0].tanh(); }, {x}));
#include <functional>
#include <vector>

#include "tensor/tensor.h"

namespace brisk::autograd {

using GradcheckFn = std::function<Tensor(const std::vector<Tensor>&)>;

// For every input that requires grad (float64, any strides, no two elements sharing memory),
// compares the Jacobian of fn's output computed by backward with central differences of
// step `eps`; an element passes when |analytical - numerical| <= atol + rtol * |numerical|.
// Then, against that Jacobian, backward with non-contiguous incoming gradients (expanded, with
// stride 0, and transposed, where the output's shape allows), and fn of non-contiguous copies
// of the contiguous inputs (transposed, or strided for one long dim): same output, same
// Jacobian. Returns true, or throws brisk::Error naming the variant, the input, the elements
// and both values.
bool gradcheck(const GradcheckFn& fn, const std::vector<Tensor>& inputs, double eps = 1e-6, double atol = 1e-5,
               double rtol = 1e-3);

// Second derivatives: gradcheck of the function mapping the inputs to the gradient of
// sum(fn(inputs) * v) (for a fixed random v), computed with create_graph.
bool gradgradcheck(const GradcheckFn& fn, const std::vector<Tensor>& inputs, double eps = 1e-6, double atol = 1e-5,
                   double rtol = 1e-3);

}  // namespace brisk::autograd
