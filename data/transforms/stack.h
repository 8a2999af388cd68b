#pragma once
// transforms::Stack<>: libtorch's batch transform that stacks a batch's examples into one,
// written where a libtorch program maps it over a dataset:
//
//   auto dataset = data::datasets::MNIST(root).map(data::transforms::Stack<>());
//
// A Brisk DataLoader always collates (default_collate stacks, data/collate.h), so Stack<> only
// marks the dataset as stacked, as libtorch requires before batches are tensors.
#include "data/example.h"

namespace brisk::data::transforms {

template <typename ExampleType = Example<>>
struct Stack {};

}  // namespace brisk::data::transforms
