#pragma once
// What a Dataset hands out (an Example) and what a DataLoader hands back (a Batch).
#include "tensor/tensor.h"

namespace brisk::data {

// One sample: its input and its label. The target may be undefined for unlabelled data.
// Written Example<> (libtorch's torch::data::Example<>); the DataLoader takes tensors.
template <typename Data = Tensor, typename Target = Tensor>
struct Example {
  Data data;
  Target target;
};

// Samples collated together: by default their data and their targets, each stacked along a
// new first dim (data [B, ...], target [B, ...]).
struct Batch {
  Tensor data;
  Tensor target;
};

}  // namespace brisk::data
