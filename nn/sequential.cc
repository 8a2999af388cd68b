#include "nn/sequential.h"

namespace brisk::nn {

Tensor SequentialImpl::forward(const Tensor& input) { return forward_range(0, size(), input); }

Tensor SequentialImpl::forward_range(size_t begin, size_t end, const Tensor& input) const {
  BRISK_CHECK(begin <= end && end <= size(), "Sequential::forward_range: [{}, {}) is not a range of the {} modules",
              begin, end, size());
  Tensor x = input;
  for (size_t i = begin; i < end; ++i) {
    Module& module = *ptr(i);
    x = forward_naming_module(module, [&] { return module.forward(x); });
  }
  return x;
}

}  // namespace brisk::nn
