#include "tensor/iter/reduce_shape.h"

#include "tensor/error.h"

namespace brisk::iter {

ReduceShape make_reduce_shape(const Tensor& in, const std::vector<int64_t>& dims,
                              std::initializer_list<const Tensor*> outputs) {
  ReduceShape s;
  const Shape& shape = in.sizes();
  int64_t ndim = in.dim();
  BRISK_CHECK(ndim <= kMaxDims, "reduce: a tensor of {} dims; at most {} are supported", ndim, kMaxDims);
  BRISK_CHECK(outputs.size() <= kMaxReduceOutputs, "reduce: at most {} outputs", kMaxReduceOutputs);
  Shape kept_shape = shape;
  for (int64_t d : dims) kept_shape[d] = 1;
  s.in = static_cast<const char*>(in.raw_data());
  for (const Tensor* out : outputs) {
    BRISK_CHECK(out->sizes() == kept_shape, "reduce: output of shape {} for reducing {} over dims {}; expected {}",
                out->sizes(), shape, dims, kept_shape);
    s.out[s.nout++] = static_cast<char*>(out->raw_data());
  }
  auto in_elem = static_cast<int64_t>(in.element_size());
  std::vector<bool> reduced(ndim, false);
  for (int64_t d : dims) reduced[d] = true;
  for (int64_t d = ndim - 1; d >= 0; --d) {
    if (reduced[d]) {
      s.num_reduced *= shape[d];
      if (shape[d] == 1) continue;
      s.red_sizes[s.nreduced] = shape[d];
      s.red_strides[s.nreduced++] = in.strides()[d] * in_elem;
    } else {
      s.num_outputs *= shape[d];
      if (shape[d] == 1) continue;
      s.kept_sizes[s.nkept] = shape[d];
      s.kept_in_strides[s.nkept] = in.strides()[d] * in_elem;
      int k = 0;
      for (const Tensor* out : outputs) {
        s.kept_out_strides[k++][s.nkept] = out->strides()[d] * static_cast<int64_t>(out->element_size());
      }
      ++s.nkept;
    }
  }
  int64_t* kept_strides[1 + kMaxReduceOutputs] = {s.kept_in_strides, s.kept_out_strides[0], s.kept_out_strides[1]};
  merge_dims(s.nkept, s.kept_sizes, kept_strides, 1 + s.nout);
  int64_t* red_strides[1] = {s.red_strides};
  merge_dims(s.nreduced, s.red_sizes, red_strides, 1);
  if (s.nkept == 0) {
    s.nkept = 1;
    s.kept_sizes[0] = 1;
    s.kept_in_strides[0] = 0;
    for (int k = 0; k < s.nout; ++k) s.kept_out_strides[k][0] = 0;
  }
  if (s.nreduced == 0) {
    s.nreduced = 1;
    s.red_sizes[0] = 1;
    s.red_strides[0] = 0;
  }
  return s;
}

}  // namespace brisk::iter
