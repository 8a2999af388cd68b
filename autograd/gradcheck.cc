#include "autograd/gradcheck.h"

#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "tensor/native/ops.h"

namespace brisk::autograd {

namespace {

// Jacobians as gradcheck keeps them: per checked input, row k = the gradient of output element
// k, flattened row-major.
using Jacobians = std::vector<std::vector<double>>;

struct Tolerance {
  double atol;
  double rtol;
  bool accepts(double got, double expected) const {
    return std::abs(got - expected) <= atol + rtol * std::abs(expected);
  }
};

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

// Random float64 values of `shape` on `device`, the same on every run.
Tensor random_like(const Shape& shape, Device device) {
  static thread_local Generator gen(20250101);  // per thread: ranks of a thread-rank test draw alike
  NoGradGuard no_grad;
  return native::to(randn(shape, kFloat64, &gen), device, kFloat64);
}

// The last two dims of `shape` longer than 1, whose swap makes a transposed layout; none when
// fewer than two are.
std::optional<std::pair<int64_t, int64_t>> transposable_dims(const Shape& shape) {
  std::vector<int64_t> long_dims;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] > 1) long_dims.push_back(static_cast<int64_t>(d));
  }
  if (long_dims.size() < 2) return std::nullopt;
  return std::make_pair(long_dims[long_dims.size() - 2], long_dims.back());
}

// A tensor of `shape` whose memory is laid out transposed (two dims swapped), or none.
std::optional<Tensor> transposed_layout(const Shape& shape, Device device) {
  auto dims = transposable_dims(shape);
  if (!dims) return std::nullopt;
  Shape swapped = shape;
  std::swap(swapped[dims->first], swapped[dims->second]);
  return native::transpose(random_like(swapped, device), dims->first, dims->second);
}

// The Jacobians of `out` with respect to `inputs` by backward, one pass per output element.
Jacobians analytical_jacobians(const Tensor& out, const TensorList& inputs) {
  const int64_t out_numel = out.numel();
  Jacobians jacobians(inputs.size());
  for (size_t c = 0; c < inputs.size(); ++c) jacobians[c].assign(out_numel * inputs[c].numel(), 0.0);
  if (!out.requires_grad()) return jacobians;
  for (int64_t k = 0; k < out_numel; ++k) {
    std::vector<double> unit(out_numel, 0.0);
    unit[k] = 1.0;
    Tensor grad_output = native::to(native::from_vector<double>(unit, out.sizes(), kFloat64), out.device(), kFloat64);
    TensorList grads = grad({out}, inputs, {grad_output}, true, false, true);
    for (size_t c = 0; c < inputs.size(); ++c) {
      if (!grads[c].defined()) continue;
      std::vector<double> row = grads[c].to_vector<double>();
      std::copy(row.begin(), row.end(), jacobians[c].begin() + k * static_cast<int64_t>(row.size()));
    }
  }
  return jacobians;
}

// Incoming gradients as a backward meets them besides contiguous ones: expanded (stride 0 in a
// dim, as sum().backward() hands on) and transposed, where the output's shape allows. Both are
// views of a buffer of the output's size, so a backward that wrongly reads them as contiguous
// reads wrong values, not past the memory.
std::vector<std::pair<std::string, Tensor>> non_contiguous_grad_outputs(const Tensor& out) {
  std::vector<std::pair<std::string, Tensor>> variants;
  const Shape& shape = out.sizes();
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] <= 1) continue;
    Tensor row = native::narrow(random_like(shape, out.device()), static_cast<int64_t>(d), 0, 1);
    variants.emplace_back(fmt::format("an expanded incoming gradient (stride 0 in dim {})", d),
                          native::expand(row, shape));
    break;
  }
  if (auto transposed = transposed_layout(shape, out.device())) {
    variants.emplace_back("a transposed incoming gradient", *transposed);
  }
  return variants;
}

// Backward with each non-contiguous incoming gradient v must give v^T J, J the Jacobian
// already checked against finite differences with contiguous incoming gradients.
void check_non_contiguous_grad_outputs(const Tensor& out, const TensorList& inputs, const std::vector<size_t>& checked,
                                       const Jacobians& jacobians, Tolerance tolerance) {
  const int64_t out_numel = out.numel();
  for (const auto& [variant, v] : non_contiguous_grad_outputs(out)) {
    const std::vector<double> weights = v.to_vector<double>();
    TensorList grads = grad({out}, inputs, {v}, true, false, true);
    for (size_t c = 0; c < inputs.size(); ++c) {
      const int64_t in_numel = inputs[c].numel();
      const std::vector<double> got =
          grads[c].defined() ? grads[c].to_vector<double>() : std::vector<double>(in_numel, 0.0);
      for (int64_t j = 0; j < in_numel; ++j) {
        double expected = 0.0;
        for (int64_t k = 0; k < out_numel; ++k) expected += weights[k] * jacobians[c][k * in_numel + j];
        BRISK_CHECK(tolerance.accepts(got[j], expected),
                    "gradcheck: backward is wrong with {}: the gradient of input {} (shape {}) at element {} is {}, "
                    "expected {} (from the Jacobian checked with contiguous incoming gradients). A backward that "
                    "reads gradients through data_ptr must handle their strides",
                    variant, checked[c], inputs[c].sizes(), multi_index(inputs[c].sizes(), j), got[j], expected);
      }
    }
  }
}

// A copy of x whose memory is laid out transposed, or every other element of a longer buffer
// when x has a single dim longer than 1; how it is laid out goes to `layout`.
Tensor non_contiguous_copy(const Tensor& x, std::string& layout) {
  NoGradGuard no_grad;
  Tensor copy;
  if (auto transposed = transposed_layout(x.sizes(), x.device())) {
    copy = *transposed;
    layout = "transposed";
  } else {
    Shape longer = x.sizes();
    for (int64_t& n : longer) {
      if (n > 1) n *= 2;
    }
    copy = random_like(longer, x.device());
    for (int64_t d = 0; d < x.dim(); ++d) {
      if (x.size(d) > 1) copy = native::slice(copy, d, std::nullopt, std::nullopt, 2);
    }
    layout = "strided";
  }
  native::copy_(copy, x);
  return copy.detach().requires_grad_(true);
}

// fn of non-contiguous views with the same values as the contiguous inputs must give the same
// output and the same Jacobians.
void check_non_contiguous_inputs(const GradcheckFn& fn, const std::vector<Tensor>& inputs,
                                 const std::vector<size_t>& checked, const Tensor& out, const Jacobians& jacobians,
                                 Tolerance tolerance) {
  std::vector<Tensor> views = inputs;
  std::string variant;
  for (size_t i : checked) {
    if (!inputs[i].is_contiguous() || inputs[i].numel() <= 1) continue;
    std::string layout;
    views[i] = non_contiguous_copy(inputs[i], layout);
    variant += fmt::format("{}input {} {}", variant.empty() ? "" : ", ", i, layout);
  }
  if (variant.empty()) return;

  Tensor view_out = fn(views);
  BRISK_CHECK(view_out.defined() && view_out.sizes() == out.sizes(),
              "gradcheck: with non-contiguous inputs ({}): fn returned {}, but {} with contiguous inputs", variant,
              view_out.describe(), out.describe());
  const std::vector<double> expected_out = out.to_vector<double>(), got_out = view_out.to_vector<double>();
  for (size_t k = 0; k < got_out.size(); ++k) {
    BRISK_CHECK(tolerance.accepts(got_out[k], expected_out[k]),
                "gradcheck: forward is wrong with non-contiguous inputs ({}): output element {} is {}, expected {} "
                "(with contiguous inputs). A forward that reads inputs through data_ptr must handle their strides",
                variant, multi_index(out.sizes(), static_cast<int64_t>(k)), got_out[k], expected_out[k]);
  }
  TensorList differentiable;
  for (size_t i : checked) differentiable.push_back(views[i]);
  const Jacobians got = analytical_jacobians(view_out, differentiable);
  const int64_t out_numel = out.numel();
  for (size_t c = 0; c < checked.size(); ++c) {
    const int64_t in_numel = inputs[checked[c]].numel();
    for (int64_t k = 0; k < out_numel; ++k) {
      for (int64_t j = 0; j < in_numel; ++j) {
        const double g = got[c][k * in_numel + j], e = jacobians[c][k * in_numel + j];
        BRISK_CHECK(tolerance.accepts(g, e),
                    "gradcheck: backward is wrong with non-contiguous inputs ({}): the Jacobian of input {} (shape "
                    "{}) at element {} and output element {} is {}, expected {} (with contiguous inputs)",
                    variant, checked[c], inputs[checked[c]].sizes(), multi_index(inputs[checked[c]].sizes(), j),
                    multi_index(out.sizes(), k), g, e);
      }
    }
  }
}

}  // namespace

bool gradcheck(const GradcheckFn& fn, const std::vector<Tensor>& inputs, double eps, double atol, double rtol) {
  const Tolerance tolerance{atol, rtol};
  std::vector<size_t> checked;
  TensorList differentiable;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined() || !inputs[i].requires_grad()) continue;
    check_input(inputs[i], i);
    checked.push_back(i);
    differentiable.push_back(inputs[i]);
  }
  BRISK_CHECK(!checked.empty(), "gradcheck: no input requires grad");

  Tensor out = fn(inputs);
  BRISK_CHECK(out.defined() && out.dtype() == kFloat64, "gradcheck: fn must return a float64 tensor, got {}",
              out.describe());
  const Jacobians analytical = analytical_jacobians(out, differentiable);

  // Numerical Jacobians by central differences, perturbing the input's memory directly
  // (through a view of one element, so CUDA inputs are perturbed on their device).
  const int64_t out_numel = out.numel();
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
        BRISK_CHECK(tolerance.accepts(analytic, numerical),
                    "gradcheck: Jacobian mismatch for input {} (shape {}) at element {} and output element {} of "
                    "{}: numerical {} vs analytical {} (atol {}, rtol {})",
                    checked[c], x.sizes(), multi_index(x.sizes(), j), multi_index(out.sizes(), k), out.sizes(),
                    numerical, analytic, atol, rtol);
      }
    }
  }

  if (out.requires_grad()) check_non_contiguous_grad_outputs(out, differentiable, checked, analytical, tolerance);
  check_non_contiguous_inputs(fn, inputs, checked, out, analytical, tolerance);
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
