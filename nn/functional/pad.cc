// pad in constant mode, as torch.nn.functional.pad: one fill of the output with the value and
// one copy of the input (cropped by the negative pads) into its interior, two kernels. Its
// gradient is the opposite padding of the output's gradient with zeros: for pads that only
// add, the interior itself (a view, no kernel).
#include <algorithm>
#include <vector>

#include "autograd/ops.h"
#include "autograd/record.h"
#include "nn/functional.h"
#include "tensor/native/ops.h"

namespace brisk::nn::functional {

using autograd::BackwardArgs;
using autograd::TensorList;

namespace {

// The dim of the i-th (before, after) pair: the last dim first.
int64_t padded_dim(const Tensor& t, size_t pair) { return t.dim() - 1 - static_cast<int64_t>(pair); }

// t without the rows the negative pads crop; a view.
Tensor cropped(const Tensor& t, const std::vector<int64_t>& pad) {
  Tensor inner = t;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const int64_t d = padded_dim(t, i);
    const int64_t begin = std::max<int64_t>(-pad[2 * i], 0), end = t.size(d) - std::max<int64_t>(-pad[2 * i + 1], 0);
    inner = native::slice(inner, d, begin, end, 1);
  }
  return inner;
}

// The gradient of pad(x, pad) from the output's: for pads that only add, the interior of
// grad, a differentiable view; otherwise grad padded the other way with zeros.
Tensor pad_backward(const Tensor& grad, const std::vector<int64_t>& pad) {
  if (std::all_of(pad.begin(), pad.end(), [](int64_t p) { return p >= 0; })) {
    Tensor inner = grad;
    for (size_t i = 0; i < pad.size() / 2; ++i) {
      const int64_t d = padded_dim(grad, i);
      inner = inner.slice(d, pad[2 * i], grad.size(d) - pad[2 * i + 1]);
    }
    return inner;
  }
  std::vector<int64_t> opposite(pad.size());
  std::transform(pad.begin(), pad.end(), opposite.begin(), [](int64_t p) { return -p; });
  return functional::pad(grad, opposite, 0.0);
}

}  // namespace

Tensor pad(const Tensor& input, IntArrayRef pad_in, double value) {
  std::vector<int64_t> pad = pad_in.vec();
  BRISK_CHECK(pad.size() % 2 == 0 && static_cast<int64_t>(pad.size() / 2) <= input.dim(),
              "pad: expected an even number of pads, at most 2 per dim of input {}, got {}", input.describe(),
              fmt::join(pad, ", "));
  Shape out_shape = input.sizes();
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const int64_t d = padded_dim(input, i);
    out_shape[d] += pad[2 * i] + pad[2 * i + 1];
    BRISK_CHECK(out_shape[d] >= 0, "pad: pads ({}, {}) of dim {} leave a negative size {} of input {}", pad[2 * i],
                pad[2 * i + 1], d, out_shape[d], input.describe());
  }
  // In the input's layout, as PyTorch's: a channels_last input gives a channels_last output.
  Tensor out = native::full(out_shape, value, input.options().memory_format(input.suggest_memory_format()));
  Tensor inner = cropped(input, pad);
  if (inner.numel() > 0) {
    Tensor interior = out;
    for (size_t i = 0; i < pad.size() / 2; ++i) {
      const int64_t d = padded_dim(input, i), begin = std::max<int64_t>(pad[2 * i], 0);
      interior = native::slice(interior, d, begin, begin + inner.size(d), 1);
    }
    native::copy_(interior, inner);
  }
  return autograd::record("ConstantPadNdBackward", out, {input}, {},
                          [pad](const BackwardArgs& a) -> TensorList { return {pad_backward(a.grad(), pad)}; });
}

}  // namespace brisk::nn::functional
