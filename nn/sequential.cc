#include "nn/sequential.h"

namespace brisk::nn {

Tensor SequentialImpl::forward(const Tensor& input) { return forward_range(0, entries_.size(), input); }

Tensor SequentialImpl::forward_range(size_t begin, size_t end, const Tensor& input) const {
  BRISK_CHECK(begin <= end && end <= entries_.size(),
              "Sequential::forward_range: [{}, {}) is not a range of the {} modules", begin, end, entries_.size());
  Tensor x = input;
  for (size_t i = begin; i < end; ++i) x = entries_[i].forward(x);
  return x;
}

std::shared_ptr<Module> SequentialImpl::ptr(size_t index) const {
  BRISK_CHECK(index < entries_.size(), "Sequential: index {} is out of range for a Sequential of {} modules", index,
              entries_.size());
  return entries_[index].module;
}

}  // namespace brisk::nn
