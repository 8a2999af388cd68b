#pragma once
// The strides a new elementwise output gets from its inputs, by PyTorch's TensorIterator
// rule, so that an op keeps the layout it is given (a channels_last input gives a
// channels_last output) without a copy: when every input has the output's shape and they are
// all contiguous, all channels_last, or all dense with the same strides, those; otherwise the
// dims are ordered by the inputs' strides, the first input that orders two dims deciding
// (broadcast dims order nothing), and the output is dense in that order.
#include <vector>

#include "tensor/tensor.h"

namespace brisk::iter {

// `inputs` are the op's operands before broadcasting to `shape`; undefined ones are skipped.
Shape output_strides(const Shape& shape, const std::vector<Tensor>& inputs);

}  // namespace brisk::iter
