#include "autograd/gradcheck.h"

#include <cmath>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "tensor/native/ops.h"

namespace brisk::autograd {

namespace {

// The multi-index of row-major element `flat` of a tensor of `shape`.
Shape multi_index(const Shape& shape, int64_t flat) {
  Shape index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}

void check_input(const Tensor& t, size_t i) {
  BRISK_CHECK(t.dtype() == kFloat64, "gradcheck: input {} has dtype {}; gradcheck needs float64 inputs", i, t.dtype());
  for (int64_t d = 0; d < t.dim(); ++d) {
    BRISK_CHECK(t.stride(d) != 0 || t.size(d) <= 1,
                "gradcheck: input {} ({}) has elements sharing memory (stride 0 in dim {}); perturbing one would "
                "change several",
                i, t.describe(), d);
  }
}

// Row-major element `flat` of x as a 0-dim view, to read and perturb on any device.
Tensor element(const Tensor& x, int64_t flat) {
  Tensor e = x;
  for (int64_t i : multi_index(x.sizes(), flat)) e = native::select(e, 0, i);
  return e;
}

std::vector<double> evaluate(const GradcheckFn& fn, const std::vector<Tensor>& inputs) {
  NoGradGuard no_grad;
  return fn(inputs).to_vector<double>();
}

}  // namespace

bool gradcheck(const GradcheckFn& fn, const std::vector<Tensor>& inputs, double eps, double atol, double rtol) {
  std::vector<size_t> checked;
  TensorList differentiable;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined() || !inputs[i].requires_grad()) continue;
    check_input(inputs[i], i);
    checked.push_back(i);
    differentiable.push_back(inputs[i]);
  }
  BRISK_CHECK(!checked.empty(), "gradcheck: no input requires grad");

  // Analytical Jacobians, row k = the gradient of output element k (one backward pass each).
  Tensor out = fn(inputs);
  BRISK_CHECK(out.defined() && out.dtype() == kFloat64, "gradcheck: fn must return a float64 tensor, got {}",
              out.describe());
  const int64_t out_numel = out.numel();
  std::vector<std::vector<double>> analytical(checked.size());
  for (size_t c = 0; c < checked.size(); ++c) analytical[c].assign(out_numel * inputs[checked[c]].numel(), 0.0);
  if (out.requires_grad()) {
    for (int64_t k = 0; k < out_numel; ++k) {
      std::vector<double> unit(out_numel, 0.0);
      unit[k] = 1.0;
      Tensor grad_output = native::to(native::from_vector<double>(unit, out.sizes(), kFloat64), out.device(), kFloat64);
      TensorList grads = grad({out}, differentiable, {grad_output}, true, false, true);
      for (size_t c = 0; c < checked.size(); ++c) {
        if (!grads[c].defined()) continue;
        std::vector<double> row = grads[c].to_vector<double>();
        std::copy(row.begin(), row.end(), analytical[c].begin() + k * static_cast<int64_t>(row.size()));
      }
    }
  }

  // Numerical Jacobians by central differences, perturbing the input's memory directly
  // (through a view of one element, so CUDA inputs are perturbed on their device).
  for (size_t c = 0; c < checked.size(); ++c) {
    const Tensor& x = inputs[checked[c]];
    const int64_t in_numel = x.numel();
    for (int64_t j = 0; j < in_numel; ++j) {
      Tensor e = element(x, j);
      const double original = e.item<double>();
      native::fill_(e, original + eps);
      std::vector<double> plus = evaluate(fn, inputs);
      native::fill_(e, original - eps);
      std::vector<double> minus = evaluate(fn, inputs);
      native::fill_(e, original);
      for (int64_t k = 0; k < out_numel; ++k) {
        double numerical = (plus[k] - minus[k]) / (2.0 * eps);
        double analytic = analytical[c][k * in_numel + j];
        BRISK_CHECK(std::abs(analytic - numerical) <= atol + rtol * std::abs(numerical),
                    "gradcheck: Jacobian mismatch for input {} (shape {}) at element {} and output element {} of "
                    "{}: numerical {} vs analytical {} (atol {}, rtol {})",
                    checked[c], x.sizes(), multi_index(x.sizes(), j), multi_index(out.sizes(), k), out.sizes(),
                    numerical, analytic, atol, rtol);
      }
    }
  }
  return true;
}

bool gradgradcheck(const GradcheckFn& fn, const std::vector<Tensor>& inputs, double eps, double atol, double rtol) {
  Tensor v;
  {
    NoGradGuard no_grad;
    Generator gen(2024);
    const Tensor out = fn(inputs);
    v = randn(out.sizes(), kFloat64, &gen).to(out.device());
  }
  GradcheckFn first_derivative = [&fn, v](const std::vector<Tensor>& in) {
    EnableGradGuard enable;
    Tensor out = fn(in);
    TensorList differentiable;
    for (const Tensor& t : in) {
      if (t.defined() && t.requires_grad()) differentiable.push_back(t);
    }
    TensorList grads =
        out.requires_grad() ? grad({out}, differentiable, {v}, true, true, true) : TensorList(differentiable.size());
    TensorList flat;
    for (size_t i = 0; i < grads.size(); ++i) {
      const Tensor& t = differentiable[i];
      flat.push_back(grads[i].defined() ? grads[i].reshape({-1})
                                        : zeros({t.numel()}, TensorOptions(kFloat64).device(t.device())));
    }
    return cat(flat, 0);
  };
  return gradcheck(first_derivative, inputs, eps, atol, rtol);
}

}  // namespace brisk::autograd
