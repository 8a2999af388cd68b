#include "distributed/collective_checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "tensor/error.h"

namespace brisk::dist {

CallChecks::CallChecks(const char* backend, const ProcessGroup& group, const char* op)
    : backend_(backend), op_(op), rank_(group.rank()), size_(group.size()), device_(group.device()) {}

std::string CallChecks::where() const { return fmt::format("{} {}: rank {} of {}", backend_, op_, rank_, size_); }

void CallChecks::tensor(const Tensor& t, const std::string& what) const {
  BRISK_CHECK(t.defined(), "{}: {} is an undefined tensor", where(), what);
  BRISK_CHECK(t.device() == device_, "{}: {} is on {}, but the group's device is {} (every tensor must be on it)",
              where(), what, t.device(), device_);
  BRISK_CHECK(t.is_contiguous(), "{}: {} must be contiguous, got {}", where(), what, t.describe());
}

void CallChecks::list(const std::vector<Tensor>& list, const Tensor& like, const std::string& what) const {
  list_of_dtype(list, like.dtype(), what);
  for (size_t r = 0; r < list.size(); ++r)
    BRISK_CHECK(list[r].numel() == like.numel(), "{}: {}[{}] has {} elements ({}), but {} are expected ({})", where(),
                what, r, list[r].numel(), list[r].sizes(), like.numel(), like.sizes());
}

void CallChecks::list_of_dtype(const std::vector<Tensor>& list, DType dtype, const std::string& what) const {
  BRISK_CHECK(static_cast<int>(list.size()) == size_, "{}: {} has {} tensors, the group has {} ranks", where(), what,
              list.size(), size_);
  for (size_t r = 0; r < list.size(); ++r) {
    tensor(list[r], fmt::format("{}[{}]", what, r));
    BRISK_CHECK(list[r].dtype() == dtype, "{}: {}[{}] is {}, but {} is expected", where(), what, r,
                dtype_name(list[r].dtype()), dtype_name(dtype));
  }
}

void CallChecks::root(int root) const {
  BRISK_CHECK(root >= 0 && root < size_, "{}: root {} is not in [0, {})", where(), root, size_);
}

void CallChecks::peer(int peer) const {
  BRISK_CHECK(peer >= 0 && peer < size_ && peer != rank_, "{}: peer rank {} is not another rank of [0, {})", where(),
              peer, size_);
}

void CallChecks::dtype(DType dtype, std::initializer_list<DType> supported) const {
  if (std::find(supported.begin(), supported.end(), dtype) != supported.end()) return;
  std::vector<std::string> names;
  for (DType d : supported) names.push_back(dtype_name(d));
  BRISK_FAIL("{}: dtype {} is not supported ({})", where(), dtype_name(dtype), fmt::join(names, ", "));
}

DType CallChecks::all_to_all(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                             std::initializer_list<DType> supported) const {
  BRISK_CHECK(!inputs.empty(), "{}: inputs is empty, the group has {} ranks", where(), size_);
  const DType dtype = inputs[0].defined() ? inputs[0].dtype() : kFloat32;
  list_of_dtype(inputs, dtype, "inputs");
  list_of_dtype(outputs, dtype, "outputs");
  this->dtype(dtype, supported);
  const Tensor& in = inputs[static_cast<size_t>(rank_)];
  const Tensor& out = outputs[static_cast<size_t>(rank_)];
  BRISK_CHECK(in.numel() == out.numel(), "{}: inputs[{}] has {} elements but outputs[{}] {} (this rank's own piece)",
              where(), rank_, in.numel(), rank_, out.numel());
  return dtype;
}

}  // namespace brisk::dist
