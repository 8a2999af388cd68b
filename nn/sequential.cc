#include "nn/sequential.h"

namespace brisk::nn {

Tensor SequentialImpl::forward(const Tensor& input) const {
  Tensor x = input;
  for (const Entry& entry : entries_) x = entry.forward(x);
  return x;
}

std::shared_ptr<Module> SequentialImpl::ptr(size_t index) const {
  BRISK_CHECK(index < entries_.size(), "Sequential: index {} is out of range for a Sequential of {} modules", index,
              entries_.size());
  return entries_[index].module;
}

}  // namespace brisk::nn
