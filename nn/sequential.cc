#include "nn/sequential.h"

namespace brisk::nn {

Tensor SequentialImpl::forward(const Tensor& input) { return forward_range(0, modules_.size(), input); }

Tensor SequentialImpl::forward_range(size_t begin, size_t end, const Tensor& input) const {
  BRISK_CHECK(begin <= end && end <= modules_.size(),
              "Sequential::forward_range: [{}, {}) is not a range of the {} modules", begin, end, modules_.size());
  Tensor x = input;
  for (size_t i = begin; i < end; ++i) {
    Module& module = *modules_[i];
    x = forward_naming_module(module, [&] { return module.forward(x); });
  }
  return x;
}

std::shared_ptr<Module> SequentialImpl::ptr(size_t index) const {
  BRISK_CHECK(index < modules_.size(), "Sequential: index {} is out of range for a Sequential of {} modules", index,
              modules_.size());
  return modules_[index];
}

}  // namespace brisk::nn
