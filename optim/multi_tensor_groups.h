#pragma once
// The lists a step hands to one multi-tensor update each (tensor/native/ops.h's
// multi_tensor_*_): the tensors of a parameter group split by what one call must share, their
// device and dtype and, for SGD and Adam, whether it is the first step or which step it is.
//
//   auto key = [&](size_t i) { return std::make_tuple(params[i].device(), params[i].dtype()); };
//   for (const std::vector<size_t>& same : group_by(params.size(), key)) {
//     native::multi_tensor_sgd_step_(pick(params, same), pick(grads, same), {}, options);
//   }
#include <algorithm>
#include <cstddef>
#include <vector>

#include "tensor/tensor.h"

namespace brisk::optim {

// The indices 0..n-1 grouped by key_of(i) (a value with ==), in order within a group, the
// groups in the order of their first index.
template <typename KeyOf>
std::vector<std::vector<size_t>> group_by(size_t n, const KeyOf& key_of) {
  using Key = decltype(key_of(size_t{0}));
  std::vector<Key> keys;
  std::vector<std::vector<size_t>> groups;
  for (size_t i = 0; i < n; ++i) {
    const Key key = key_of(i);
    const size_t g = static_cast<size_t>(std::find(keys.begin(), keys.end(), key) - keys.begin());
    if (g == keys.size()) {
      keys.push_back(key);
      groups.emplace_back();
    }
    groups[g].push_back(i);
  }
  return groups;
}

// tensors[i] for each of `indices`; empty for an empty list (a buffer the options do not use).
inline std::vector<Tensor> pick(const std::vector<Tensor>& tensors, const std::vector<size_t>& indices) {
  std::vector<Tensor> picked;
  if (tensors.empty()) return picked;
  picked.reserve(indices.size());
  for (size_t i : indices) picked.push_back(tensors[i]);
  return picked;
}

}  // namespace brisk::optim
