#pragma once
// The geometry of the 2-D sliding-window ops (convolution and pooling) over NCHW tensors:
// each pair is (height, width). Native ops validate it and compute output sizes; backends
// receive it already checked.
#include <array>
#include <cstdint>

#include "brisk/requires_cxx17.h"

namespace brisk {

using Pair = std::array<int64_t, 2>;

struct Conv2dParams {
  Pair stride{1, 1};
  Pair padding{0, 0};
  Pair dilation{1, 1};
  // Input and output channels split into this many independent groups.
  int64_t groups = 1;
};

struct Pool2dParams {
  Pair kernel{1, 1};
  Pair stride{1, 1};
  Pair padding{0, 0};
  Pair dilation{1, 1};  // max pooling only
  // Output sizes round up instead of down; a window may then hang over the bottom/right edge.
  bool ceil_mode = false;
  // Average pooling: whether zero padding counts in the divisor (PyTorch's default: yes).
  bool count_include_pad = true;
  // Average pooling: divide by this instead of the window size when nonzero.
  int64_t divisor_override = 0;
};

// Windows along one dim: PyTorch's pooling_output_shape (with ceil_mode false, also the
// convolution output size). A window in ceil mode must start inside the input or the left
// padding, so the last one is dropped when it would start in the right padding.
inline int64_t window_output_size(int64_t input, int64_t kernel, int64_t stride, int64_t padding, int64_t dilation,
                                  bool ceil_mode) {
  int64_t span = input + 2 * padding - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  // Floor division (span may be negative when the window does not fit).
  int64_t out = (span >= 0 ? span / stride : -((-span + stride - 1) / stride)) + 1;
  if (ceil_mode && out > 0 && (out - 1) * stride >= input + padding) --out;
  return out;
}

}  // namespace brisk
